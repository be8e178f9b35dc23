package watch

import (
	"fmt"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
)

// TestBackoff pins the delays between failed attempts: exponential up to
// the cap, started over by progress (a page or an event), and never shorter
// than the server's Retry-After.
func TestBackoff(t *testing.T) {
	capped := wait.Backoff{Duration: 800 * time.Millisecond, Factor: 2, Cap: 10 * time.Second, Steps: 1 << 30}
	tests := []struct {
		name       string
		backoff    wait.Backoff
		script     []reply
		wantDelays []time.Duration
	}{{
		name:    "doubles from 800ms up to the cap and stays there",
		backoff: capped,
		script: []reply{listFails(internal), listFails(internal), listFails(internal), listFails(internal),
			listFails(internal), listFails(internal), listFails(internal)},
		wantDelays: []time.Duration{800 * time.Millisecond, 1600 * time.Millisecond, 3200 * time.Millisecond,
			6400 * time.Millisecond, 10 * time.Second, 10 * time.Second, 10 * time.Second},
	}, {
		name:    "starts over after a page",
		backoff: testBackoff,
		script: []reply{listFails(internal), listFails(internal), listFails(internal), listOK("8", "c1", "a"),
			listFails(internal), listFails(internal)},
		wantDelays: []time.Duration{800 * time.Millisecond, 1600 * time.Millisecond, 3200 * time.Millisecond,
			800 * time.Millisecond, 1600 * time.Millisecond},
	}, {
		name:    "starts over after a watch event",
		backoff: testBackoff,
		script: []reply{listOK("10", ""), watchFails(internal), watchFails(internal),
			watchOK(breaks(errReset), added("a", "11")), watchFails(internal)},
		wantDelays: []time.Duration{800 * time.Millisecond, 1600 * time.Millisecond, 800 * time.Millisecond, 1600 * time.Millisecond},
	}, {
		name:       "a watch closed at once without events backs off like an error and does not start over",
		backoff:    testBackoff,
		script:     []reply{listOK("10", ""), watchFails(internal), watchOK(eof), watchFails(internal)},
		wantDelays: []time.Duration{800 * time.Millisecond, 1600 * time.Millisecond, 3200 * time.Millisecond},
	}, {
		name:       "a Retry-After longer than the step wins; the steps go on",
		backoff:    testBackoff,
		script:     []reply{listFails(slowDown), listFails(internal)},
		wantDelays: []time.Duration{7 * time.Second, 1600 * time.Millisecond},
	}, {
		name:    "a step longer than the Retry-After wins",
		backoff: testBackoff,
		script: []reply{listFails(internal), listFails(internal), listFails(internal), listFails(internal),
			listFails(apierrors.NewTooManyRequests("slow down", 2))},
		wantDelays: []time.Duration{800 * time.Millisecond, 1600 * time.Millisecond, 3200 * time.Millisecond,
			6400 * time.Millisecond, 12800 * time.Millisecond},
	}, {
		name:       "a Retry-After beyond the cap is honoured",
		backoff:    capped,
		script:     []reply{listFails(apierrors.NewTooManyRequests("slow down", 60))},
		wantDelays: []time.Duration{60 * time.Second},
	}, {
		name:       "a server timeout's suggested delay is honoured",
		backoff:    testBackoff,
		script:     []reply{listFails(apierrors.NewServerTimeout(podsGR, "list", 5))},
		wantDelays: []time.Duration{5 * time.Second},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.backoff
			r := runScript(t, Options{List: ListPaged, Backoff: &b}, nil, tc.script...)
			if r.err != nil || !r.client.ranOut() {
				t.Fatalf("Run = %v (ran out of script: %v), want nil after the whole script", r.err, r.client.ranOut())
			}
			if fmt.Sprint(r.delays) != fmt.Sprint(tc.wantDelays) {
				t.Errorf("retryIn = %v\n   want %v", r.delays, tc.wantDelays)
			}
			if b != tc.backoff {
				t.Errorf("Run changed Options.Backoff to %+v", b)
			}
		})
	}
}

// TestDefaultBackoffJitter: with DefaultBackoff each delay lies in
// [step, 2*step), and a Retry-After is still a lower bound.
func TestDefaultBackoffJitter(t *testing.T) {
	before := DefaultBackoff
	script := []reply{}
	for range 7 {
		script = append(script, listFails(internal))
	}
	script = append(script, listFails(slowDown))
	r := runScript(t, Options{List: ListPaged, Backoff: &DefaultBackoff}, nil, script...)
	if len(r.delays) != 8 {
		t.Fatalf("%d retries, want 8", len(r.delays))
	}
	step := 800 * time.Millisecond
	for i, d := range r.delays[:7] {
		if d < step || d >= 2*step {
			t.Errorf("retry %d: retryIn = %v, want in [%v, %v)", i+1, d, step, 2*step)
		}
		step = min(2*step, 30*time.Second)
	}
	if d := r.delays[7]; d < 7*time.Second {
		t.Errorf("after a 429 with Retry-After 7: retryIn = %v, want >= 7s", d)
	}
	if DefaultBackoff != before {
		t.Errorf("Run changed DefaultBackoff to %+v", DefaultBackoff)
	}
}
