package serve

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// newLagHistogram is the delivery lag histogram of every resource, by
// resource: 1 ms (a client that keeps up) to 10 s (one about to be cut off
// by writeTimeout or the store's queue bound).
func newLagHistogram() *prometheus.HistogramVec {
	return prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "kubectl_reflect_serve_subscriber_lag_seconds",
		Help:    "Time from a live change's arrival in the store to its watch event's flush to a client, per resource.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"resource"})
}

// lagWindow is how long a delivered event's lag counts in the resource's
// current lag (ResourceStatus.LagSeconds): between one and two windows.
const lagWindow = time.Minute

// deliveryLag measures, for one resource, the time from a live change's
// arrival in the store (store.Change.At) to its watch event being flushed
// to a client: every delivery into hist (for /metrics) and the current lag
// (for /debug/status). Its zero value is ready, with no histogram; it is
// safe for concurrent use.
type deliveryLag struct {
	hist prometheus.Observer // nil observes nothing

	mu      sync.Mutex
	start   time.Time     // of the current window
	cur     time.Duration // the longest lag delivered in the current window
	prev    time.Duration // in the one before it
	pending map[*pendingLag]struct{}
}

// pendingLag is one watch's oldest change written but not yet flushed (its
// arrival in unix nanoseconds; 0: none). A client that stops reading
// blocks the flush, so its pending lag grows until its watch is cut.
type pendingLag struct{ since atomic.Int64 }

// open registers a watch's pendingLag; close it when the watch ends.
func (l *deliveryLag) open() *pendingLag {
	p := &pendingLag{}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pending == nil {
		l.pending = map[*pendingLag]struct{}{}
	}
	l.pending[p] = struct{}{}
	return p
}

func (l *deliveryLag) close(p *pendingLag) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.pending, p)
}

// observe records one delivery that took d, at now.
func (l *deliveryLag) observe(d time.Duration, now time.Time) {
	d = max(d, 0) // a clock step back
	if l.hist != nil {
		l.hist.Observe(d.Seconds())
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.roll(now)
	l.cur = max(l.cur, d)
}

// roll starts a new window when the current one is over; the caller
// holds mu.
func (l *deliveryLag) roll(now time.Time) {
	switch {
	case l.start.IsZero():
		l.start = now
	case now.Sub(l.start) >= 2*lagWindow:
		l.start, l.cur, l.prev = now, 0, 0
	case now.Sub(l.start) >= lagWindow:
		l.start, l.cur, l.prev = now, 0, l.cur
	}
}

// current is the resource's lag now: the longest of the lags delivered in
// the last one to two minutes and of the changes waiting to be flushed to
// a watch now.
func (l *deliveryLag) current(now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.roll(now)
	d := max(l.cur, l.prev)
	for p := range l.pending {
		if since := p.since.Load(); since != 0 {
			d = max(d, now.Sub(time.Unix(0, since)))
		}
	}
	return d
}
