package watch

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/utils/clock"
)

// DefaultSilenceTimeout is Options.SilenceTimeout's default: half again the
// minute between the bookmarks an API server's watch cache sends a watch
// that allows them, so that one late bookmark is no alarm and two missed
// ones are.
const DefaultSilenceTimeout = 90 * time.Second

// overdue is how long a watch asked to end after timeoutSeconds may go on
// before it is taken as dead: the server ends every watch at that timeout;
// a tenth more leaves room for a slow server (30 to 60 seconds for the
// watcher's 5 to 10 minutes).
func overdue(timeoutSeconds int64) time.Duration {
	return time.Duration(timeoutSeconds) * time.Second * 11 / 10
}

// silenceChecks is how many times per SilenceTimeout the watchdog looks:
// a silence is found between SilenceTimeout and 1.25 times it.
const silenceChecks = 4

// silence is what Next returns once the watchdog closed a stream taken as
// dead: a peer that vanished without closing the connection (a laptop that
// slept, a network that changed, a proxy that stopped forwarding). Either
// the server's bookmarks stopped (nothing for after while the watcher
// waited, once a bookmark came on the same watch), or the watch went on
// for after, a tenth past its timeoutSeconds, without the end the server
// sends at that timeout (overdue). The machine takes it as that end: it
// resumes at once from the last resourceVersion, on a new connection, and
// reports no error. Silence is no proof of death (a watch cache sends no
// bookmark while its resourceVersion stands still), and a restart costs
// one request; a connection that is really gone fails the next request,
// which is reported.
type silence struct {
	after   time.Duration
	overdue bool
}

func (e *silence) Error() string {
	if e.overdue {
		return fmt.Sprintf("the server did not end the watch %v after it began, past its timeout", e.after)
	}
	return fmt.Sprintf("no event or bookmark for %v", e.after)
}

// isSilence reports whether err is a watchdog's silence.
func isSilence(err error) bool {
	var s *silence
	return errors.As(err, &s)
}

// guard returns s, a watch asked to end after timeoutSeconds, watched over
// by a watchdog, unless Options.SilenceTimeout is negative.
func (m *machine[T]) guard(s Stream[T], timeoutSeconds int64) Stream[T] {
	d := m.w.opts.SilenceTimeout
	if d < 0 {
		return s
	}
	tick := max(d/silenceChecks, time.Millisecond) // a ticker needs a positive period
	g := &watchdog[T]{
		Stream: s, quiet: d,
		overdue: overdue(timeoutSeconds),
		stop:    make(chan struct{}),
	}
	// The ticker is made here, not in the goroutine, so that a fake clock
	// stepped right after guard returns moves it.
	go g.run(m.w.opts.Clock.NewTicker(tick), tick)
	return g
}

// watchdog closes a stream taken as dead (see silence). Silence counts
// once the stream has shown that the server sends bookmarks: a watch cache
// sends them only while its resourceVersion moves past the watch's, so a
// quiet kind in a quiet cluster may get none, and its silence says
// nothing. Silence counts only the time spent waiting in Next: a reader
// that is slow to come back (a handler that blocks) leaves the server's
// data waiting in the connection, and is no silence. Its cost per event is
// two atomic adds.
type watchdog[T any] struct {
	Stream[T]
	quiet, overdue time.Duration
	// calls counts entries into and returns from Next: odd while the
	// reader waits.
	calls atomic.Uint64
	beats atomic.Bool // a bookmark other than the end of initial events came
	dead  atomic.Pointer[silence]
	stop  chan struct{}
	once  sync.Once
}

// run looks every tick until the stream is closed, and closes it once it
// is found dead.
func (g *watchdog[T]) run(t clock.Ticker, tick time.Duration) {
	defer t.Stop()
	last, still := g.calls.Load(), 0
	for age := tick; ; age += tick {
		select {
		case <-g.stop:
			return
		case <-t.C():
		}
		n := g.calls.Load()
		if n != last || n%2 == 0 || !g.beats.Load() {
			last, still = n, 0
		} else {
			still++
		}
		switch {
		case still == silenceChecks:
			g.dead.Store(&silence{after: g.quiet})
		case age >= g.overdue && n%2 == 1:
			g.dead.Store(&silence{after: age, overdue: true})
		default:
			continue
		}
		g.Stream.Close() // Next returns, with the stream's error
		return
	}
}

// Next implements Stream: the wrapped stream's, or a *silence once the
// watchdog closed it.
func (g *watchdog[T]) Next() (WatchEvent[T], error) {
	g.calls.Add(1)
	ev, err := g.Stream.Next()
	g.calls.Add(1)
	if err != nil {
		if dead := g.dead.Load(); dead != nil {
			return ev, dead
		}
	} else if ev.Type == WatchBookmark && !ev.InitialEventsEnd {
		g.beats.Store(true)
	}
	return ev, err
}

// Close implements Stream; it stops the watchdog.
func (g *watchdog[T]) Close() {
	g.once.Do(func() { close(g.stop) })
	g.Stream.Close()
}
