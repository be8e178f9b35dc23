package serve

import (
	"math"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// TestDeliveryLagHistogram: each delivery counts in the first bucket whose
// bound it does not exceed (cumulative, as Prometheus wants), beyond 10 s
// in the count and sum only; a negative lag (a clock step back) counts as 0.
func TestDeliveryLagHistogram(t *testing.T) {
	vec := newLagHistogram()
	l := deliveryLag{hist: vec.WithLabelValues("configmaps")}
	now := time.Unix(1000, 0)
	for _, d := range []time.Duration{0, time.Millisecond, 3 * time.Millisecond, 40 * time.Millisecond, 2 * time.Second, time.Minute, -time.Second} {
		l.observe(d, now)
	}
	h := histogramOf(t, vec, "configmaps")
	if h.GetSampleCount() != 7 || math.Abs(h.GetSampleSum()-62.044) > 1e-9 {
		t.Errorf("count %d, sum %v; want 7, 62.044", h.GetSampleCount(), h.GetSampleSum())
	}
	buckets := map[float64]uint64{}
	for _, b := range h.GetBucket() {
		buckets[b.GetUpperBound()] = b.GetCumulativeCount()
	}
	for _, c := range []struct {
		le   float64
		want uint64
	}{{.001, 3}, {.0025, 3}, {.005, 4}, {.025, 4}, {.05, 5}, {2.5, 6}, {10, 6}} {
		if buckets[c.le] != c.want {
			t.Errorf("bucket le=%v = %d, want %d", c.le, buckets[c.le], c.want)
		}
	}
}

// histogramOf reads the lag histogram of resource.
func histogramOf(t *testing.T, vec *prometheus.HistogramVec, resource string) *dto.Histogram {
	t.Helper()
	var m dto.Metric
	if err := vec.WithLabelValues(resource).(prometheus.Histogram).Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetHistogram()
}

// TestDeliveryLagCurrent: the current lag is the longest delivered in the
// last one to two windows, or the age of a change still unflushed if that
// is longer.
func TestDeliveryLagCurrent(t *testing.T) {
	t0 := time.Unix(1000, 0)
	type delivery struct{ off, lag time.Duration }
	tests := []struct {
		name      string
		delivered []delivery    // in order of offset from t0
		pending   time.Duration // offset of an unflushed change's arrival; 0: none
		at        time.Duration
		want      time.Duration
	}{
		{name: "nothing delivered", at: time.Second, want: 0},
		{name: "the longest of the window", delivered: []delivery{{0, 5 * time.Millisecond}, {time.Second, 20 * time.Millisecond}, {2 * time.Second, time.Millisecond}}, at: 3 * time.Second, want: 20 * time.Millisecond},
		{name: "the previous window still counts", delivered: []delivery{{0, 30 * time.Millisecond}, {70 * time.Second, 2 * time.Millisecond}}, at: 80 * time.Second, want: 30 * time.Millisecond},
		{name: "one window later the older is forgotten", delivered: []delivery{{0, 30 * time.Millisecond}, {70 * time.Second, 2 * time.Millisecond}}, at: 140 * time.Second, want: 2 * time.Millisecond},
		{name: "two windows later all is forgotten", delivered: []delivery{{0, 30 * time.Millisecond}, {70 * time.Second, 2 * time.Millisecond}}, at: 200 * time.Second, want: 0},
		{name: "a stuck watch's unflushed change", delivered: []delivery{{0, time.Millisecond}}, pending: 2 * time.Second, at: 9 * time.Second, want: 7 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var l deliveryLag
			l.roll(t0)
			for _, d := range tc.delivered {
				l.observe(d.lag, t0.Add(d.off))
			}
			p := l.open()
			defer l.close(p)
			if tc.pending != 0 {
				p.since.Store(t0.Add(tc.pending).UnixNano())
			}
			if got := l.current(t0.Add(tc.at)); got != tc.want {
				t.Errorf("current = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestWatchDeliveryLag: a live change written to a watch is counted in the
// resource's lag histogram once flushed; the state sent first is not (it
// is no event that arrived).
func TestWatchDeliveryLag(t *testing.T) {
	fx := newFixture(t, 16, cm(t, "a", "x", 5))
	wc := fx.watch("/api/v1/configmaps?watch=true")
	wc.expect("ADDED x@5")
	fx.send(watch.WatchModified, cm(t, "a", "x", 11))
	fx.send(watch.WatchAdded, cm(t, "a", "y", 12))
	wc.expect("MODIFIED x@11", "ADDED y@12")
	// The stream records a flush's deliveries before it drains again: once
	// a third event came, the first two are counted (and maybe the third).
	fx.send(watch.WatchDeleted, cm(t, "a", "y", 13))
	wc.expect("DELETED y@13")
	if count := histogramOf(t, fx.h.lag, fx.h.resources[scope{gvr: configMaps.GVR}].name()).GetSampleCount(); count < 2 || count > 3 {
		t.Errorf("%d deliveries counted, want 2 or 3", count)
	}
	if st := fx.h.Status(); st[0].LagSeconds <= 0 || st[0].LagSeconds > patience.Seconds() {
		t.Errorf("LagSeconds = %v, want more than 0 and less than %v", st[0].LagSeconds, patience.Seconds())
	}
}
