package watch

import (
	"math"
	"testing"
	"time"

	"k8s.io/utils/clock"
)

// TestWatchTimeout: every watch, streaming lists included, asks for a random
// timeout in [MinWatchTimeout, 2*MinWatchTimeout).
func TestWatchTimeout(t *testing.T) {
	tests := []struct {
		name    string
		min     time.Duration
		wantMin time.Duration
		skip    string
	}{
		{name: "default 5m", wantMin: 5 * time.Minute},
		{name: "90s", min: 90 * time.Second, wantMin: 90 * time.Second},
		{name: "1s", min: time.Second, wantMin: time.Second},
		{
			name: "sub-second", min: 500 * time.Millisecond, wantMin: 500 * time.Millisecond,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.skip != "" {
				t.Skip(tc.skip)
			}
			script := []reply{watchOK(eof, initialEventsEnd("10"))}
			for range 30 {
				script = append(script, watchOK(eof))
			}
			// runScript checks the range of every watch it makes.
			r := runScript(t, Options{MinWatchTimeout: tc.min}, nil, script...)
			seen := map[int64]bool{}
			for _, c := range r.client.rawCalls() {
				seen[c.Watch.TimeoutSeconds] = true
			}
			if len(r.client.rawCalls()) != 32 {
				t.Fatalf("%d watches, want 32", len(r.client.rawCalls()))
			}
			if tc.wantMin > time.Second && len(seen) < 2 {
				t.Errorf("every watch asked for the same timeout %v: not random", seen)
			}

			w := New[obj](r.client, Options{MinWatchTimeout: tc.min})
			lo, hi := int64(math.MaxInt64), int64(0)
			for range 2000 {
				s := w.watchTimeout()
				if !timeoutOK(s, tc.wantMin) {
					t.Fatalf("watchTimeout() = %d, want in [%v, %v)", s, tc.wantMin, 2*tc.wantMin)
				}
				lo, hi = min(lo, s), max(hi, s)
			}
			// Uniform over the range: 2000 draws reach both of its ends' tenths.
			if low, high := tc.wantMin.Seconds(), 2*tc.wantMin.Seconds(); high-low > 10 &&
				(float64(lo)-low > (high-low)/10 || high-float64(hi) > (high-low)/10) {
				t.Errorf("2000 timeouts in [%d, %d]: they do not cover [%v, %v)", lo, hi, low, high)
			}
		})
	}
}

// TestNewDefaults pins what the zero Options mean.
func TestNewDefaults(t *testing.T) {
	w := New[obj](newScriptedClient(t, func() {}), Options{})
	if w.opts.PageSize != 500 {
		t.Errorf("PageSize = %d, want 500", w.opts.PageSize)
	}
	if w.opts.MinWatchTimeout != 5*time.Minute {
		t.Errorf("MinWatchTimeout = %v, want 5m", w.opts.MinWatchTimeout)
	}
	if w.opts.Backoff == nil || *w.opts.Backoff != DefaultBackoff || w.opts.Backoff == &DefaultBackoff {
		t.Errorf("Backoff = %+v, want a copy of DefaultBackoff", w.opts.Backoff)
	}
	if w.opts.SilenceTimeout != DefaultSilenceTimeout {
		t.Errorf("SilenceTimeout = %v, want %v", w.opts.SilenceTimeout, DefaultSilenceTimeout)
	}
	if _, ok := w.opts.Clock.(clock.RealClock); !ok {
		t.Errorf("Clock = %T, want clock.RealClock", w.opts.Clock)
	}
	if w.opts.OnError == nil {
		t.Error("OnError is nil")
	} else {
		w.opts.OnError(errReset, time.Second) // must not panic
	}
	if w.opts.OnRelist == nil {
		t.Error("OnRelist is nil")
	} else {
		w.opts.OnRelist(expired) // must not panic
	}
	if w.opts.List != ListStreaming {
		t.Error("streaming lists are off by default")
	}
}
