package watch

import (
	"context"
	"fmt"
	"io"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/utils/clock"
)

// TestSilence: a watch taken as dead is closed and resumed (a live watch)
// or listed again (a streaming list) at once, with no error reported, as
// after the server's end: one that brings nothing for SilenceTimeout while
// the watcher waits, once a bookmark came on it, or one that outlives its
// timeout by a tenth. A watch that never had a bookmark is not silent, and
// a handler that takes longer than SilenceTimeout is no silence. Time is
// synctest's.
func TestSilence(t *testing.T) {
	const d = 4 * time.Second
	tests := []struct {
		name     string
		opts     Options
		handle   func(ev Event[obj])
		script   []reply
		calls    []string
		restarts int              // OnWatchRestart
		gap      [2]time.Duration // from the first event to the last
	}{
		{
			name: "a live watch silent after a bookmark resumes from the last resourceVersion",
			script: []reply{
				watchOK(block, initialEventsEnd("10"), added("a", "11"), bookmark("12")),
				watchOK(eof, modified("a", "13")),
			},
			calls:    []string{streamingListCall(), watchCallFrom("12"), watchCallFrom("13")},
			restarts: 1,                              // the last watch is past the script
			gap:      [2]time.Duration{d, d * 5 / 4}, // found between d and 1.25d
		},
		{
			name: "a streaming list silent after a bookmark starts over",
			script: []reply{
				watchOK(block, added("a", "5"), bookmark("6")),
				watchOK(eof, added("a", "5"), initialEventsEnd("10")),
			},
			calls:    []string{streamingListCall(), streamingListCall(), watchCallFrom("10")},
			restarts: 0, // the second list's watch ends, and the next is past the script
			gap:      [2]time.Duration{d, d * 5 / 4},
		},
		{
			name: "a watch without bookmarks is not silent, but overdue a tenth past its timeout",
			opts: Options{MinWatchTimeout: 5 * time.Second}, // timeouts of 5 to 9s
			script: []reply{
				watchOK(block, initialEventsEnd("10"), added("a", "11")),
				watchOK(eof, modified("a", "12")),
			},
			calls:    []string{streamingListCall(), watchCallFrom("11"), watchCallFrom("12")},
			restarts: 1,                                                           // the last watch is past the script
			gap:      [2]time.Duration{5500 * time.Millisecond, 11 * time.Second}, // 5.5s to 9.9s, found at the next tick (1s)
		},
		{
			name: "a slow handler is no silence",
			handle: func(ev Event[obj]) {
				if ev.Type == Apply && ev.ResourceVersion == "12" {
					time.Sleep(2 * d) // runScript gives up after 30s
				}
			},
			script: []reply{
				watchOK(eof, initialEventsEnd("10"), bookmark("11"), added("a", "12"), modified("a", "13")),
			},
			calls: []string{streamingListCall(), watchCallFrom("13")},
			gap:   [2]time.Duration{2 * d, 2 * d},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var first, last time.Time
				opts := tc.opts
				opts.SilenceTimeout, opts.Clock = d, clock.RealClock{}
				restarts := 0
				opts.OnWatchRestart = func() { restarts++ }
				r := runScript(t, opts, func(_ context.Context, ev Event[obj]) error {
					if first.IsZero() {
						first = time.Now()
					}
					last = time.Now()
					if tc.handle != nil {
						tc.handle(ev)
					}
					return nil
				}, tc.script...)
				diff(t, "calls", r.client.recorded(), tc.calls)
				diff(t, "retries", r.retries, nil)
				if restarts != tc.restarts {
					t.Errorf("%d watch restarts, want %d", restarts, tc.restarts)
				}
				if gap := last.Sub(first); gap < tc.gap[0] || gap > tc.gap[1] {
					t.Errorf("%v from the first event to the last, want %v to %v", gap, tc.gap[0], tc.gap[1])
				}
			})
		})
	}
}

// TestSilenceMessages: what a silence says (in no report: it may help a
// debugger), and that the machine finds it wrapped.
func TestSilenceMessages(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&silence{after: 90 * time.Second}, "no event or bookmark for 1m30s"},
		{&silence{after: 6 * time.Minute, overdue: true}, "the server did not end the watch 6m0s after it began, past its timeout"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
		if !isSilence(fmt.Errorf("reading: %w", tc.err)) {
			t.Errorf("isSilence(%v) = false", tc.err)
		}
	}
	if isSilence(io.EOF) {
		t.Error("isSilence(io.EOF) = true")
	}
}

// TestSilenceTiny: a SilenceTimeout below silenceChecks nanoseconds
// (--watch-silence-timeout=1ns) guards a stream without a panic.
func TestSilenceTiny(t *testing.T) {
	c := newScriptedClient(t, func() {})
	s := c.newStream(t.Context(), nil, block)
	m := &machine[obj]{w: New[obj](c, Options{SilenceTimeout: time.Nanosecond})}
	g := m.guard(s, 300)
	g.Close()
}

// TestSilenceOff: a negative SilenceTimeout leaves streams unguarded.
func TestSilenceOff(t *testing.T) {
	c := newScriptedClient(t, func() {})
	s := c.newStream(t.Context(), nil, block)
	m := &machine[obj]{w: New[obj](c, Options{SilenceTimeout: -1})}
	if got := m.guard(s, 300); got != Stream[obj](s) {
		t.Errorf("guard = %T, want the stream itself", got)
	}
	s.Close()
}
