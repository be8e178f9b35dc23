package watch

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/utils/clock"
)

// TestSilence: a watch taken as dead is closed and resumed (a live watch)
// or listed again (a streaming list), after a *SilenceError reported to
// OnError: one that brings nothing for SilenceTimeout while the watcher
// waits, once a bookmark came on it, or one that outlives its timeout by a
// tenth. A watch that never had a bookmark is not silent, and a handler
// that takes longer than SilenceTimeout is no silence. Time is synctest's.
func TestSilence(t *testing.T) {
	const d = 4 * time.Second
	silent := "no event or bookmark for 4s: the watch's connection is taken as dead after 800ms"
	tests := []struct {
		name    string
		opts    Options
		handle  func(ev Event[obj])
		script  []reply
		calls   []string
		retries []string
		gap     [2]time.Duration // from the first event to the last
	}{
		{
			name: "a live watch silent after a bookmark resumes from the last resourceVersion",
			script: []reply{
				watchOK(block, initialEventsEnd("10"), added("a", "11"), bookmark("12")),
				watchOK(eof, modified("a", "13")),
			},
			calls:   []string{streamingListCall(), watchCallFrom("12"), watchCallFrom("13")},
			retries: []string{silent},
			// found between d and 1.25d, then the backoff's 800ms
			gap: [2]time.Duration{d + 800*time.Millisecond, d*5/4 + 800*time.Millisecond},
		},
		{
			name: "a streaming list silent after a bookmark starts over",
			script: []reply{
				watchOK(block, added("a", "5"), bookmark("6")),
				watchOK(eof, added("a", "5"), initialEventsEnd("10")),
			},
			calls:   []string{streamingListCall(), streamingListCall(), watchCallFrom("10")},
			retries: []string{silent},
			gap:     [2]time.Duration{d + 800*time.Millisecond, d*5/4 + 800*time.Millisecond},
		},
		{
			name: "a watch without bookmarks is not silent, but overdue a tenth past its timeout",
			opts: Options{MinWatchTimeout: 5 * time.Second}, // timeouts of 5 to 9s
			script: []reply{
				watchOK(block, initialEventsEnd("10"), added("a", "11")),
				watchOK(eof, modified("a", "12")),
			},
			calls:   []string{streamingListCall(), watchCallFrom("11"), watchCallFrom("12")},
			retries: []string{"overdue after 800ms"},
			// 5.5s to 9.9s, found at the next tick (1s), then the backoff
			gap: [2]time.Duration{5500*time.Millisecond + 800*time.Millisecond, 11*time.Second + 800*time.Millisecond},
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
				diff(t, "retries", overdueAs(r.retries), tc.retries)
				if gap := last.Sub(first); gap < tc.gap[0] || gap > tc.gap[1] {
					t.Errorf("%v from the first event to the last, want %v to %v", gap, tc.gap[0], tc.gap[1])
				}
			})
		})
	}
}

// overdueAs shortens the retries of overdue watches, whose age varies with
// the random timeout, to "overdue after ...".
func overdueAs(retries []string) []string {
	out := make([]string, len(retries))
	for i, r := range retries {
		if strings.HasPrefix(r, "the watch was not ended by the server ") && strings.Contains(r, "past its timeout: its connection is taken as dead after ") {
			r = "overdue after " + r[strings.LastIndex(r, " after ")+len(" after "):]
		}
		out[i] = r
	}
	return out
}

// TestSilenceError: what OnError is told, and that it is retried like any
// transient error, not as a timeout that a one-shot read gives up on.
func TestSilenceError(t *testing.T) {
	var err error = &SilenceError{After: 90 * time.Second}
	if got, want := err.Error(), "no event or bookmark for 1m30s: the watch's connection is taken as dead"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	overdue := &SilenceError{After: 6 * time.Minute, Overdue: true}
	if got, want := overdue.Error(), "the watch was not ended by the server 6m0s after it began, past its timeout: its connection is taken as dead"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if isTimeout(err) || !(RetryPolicy{GiveUpOnTimeout: true}).retries(err, 1, nil) {
		t.Error("a silence is not retried")
	}
	var se *SilenceError
	if !errors.As(err, &se) {
		t.Error("errors.As does not find the *SilenceError")
	}
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
