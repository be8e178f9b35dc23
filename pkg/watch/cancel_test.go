package watch

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	testingclock "k8s.io/utils/clock/testing"
)

// TestCancel: when ctx ends, Run returns nil promptly wherever it waits, and
// closes the open watch.
func TestCancel(t *testing.T) {
	tests := []struct {
		name   string
		opts   Options
		script []reply
		// ready reports that Run is where the test wants to cancel it; nil
		// cancels before Run starts.
		ready func(*scriptedClient, *testingclock.FakeClock) bool
		// cancelIn makes the handler cancel on this event type.
		cancelIn   EventType
		wantCalls  []string
		wantEvents []string
	}{{
		name:       "before Run starts",
		wantEvents: nil,
	}, {
		name:       "blocked in Next during a streaming list",
		script:     []reply{watchOK(block, added("a", "5"))},
		ready:      func(c *scriptedClient, _ *testingclock.FakeClock) bool { return c.blockedStream() },
		wantCalls:  []string{streamingListCall()},
		wantEvents: []string{"Init", "InitApply a@5"},
	}, {
		name:       "blocked in Next while watching",
		opts:       Options{List: ListPaged},
		script:     []reply{listOK("10", ""), watchOK(block, added("a", "11"))},
		ready:      func(c *scriptedClient, _ *testingclock.FakeClock) bool { return c.blockedStream() },
		wantCalls:  []string{pageCall(""), watchCallFrom("10")},
		wantEvents: []string{"Init", "InitDone 10", "Apply a@11"},
	}, {
		name:       "sleeping in a backoff",
		opts:       Options{List: ListPaged},
		script:     []reply{listFails(internal)},
		ready:      func(_ *scriptedClient, fc *testingclock.FakeClock) bool { return fc.HasWaiters() },
		wantCalls:  []string{pageCall("")},
		wantEvents: []string{"Init"},
	}, {
		name:       "sleeping in a backoff after a watch failed",
		opts:       Options{List: ListPaged},
		script:     []reply{listOK("10", ""), watchOK(breaks(errReset))},
		ready:      func(_ *scriptedClient, fc *testingclock.FakeClock) bool { return fc.HasWaiters() },
		wantCalls:  []string{pageCall(""), watchCallFrom("10")},
		wantEvents: []string{"Init", "InitDone 10"},
	}, {
		name:       "in the handler, which then returns ctx's error",
		opts:       Options{List: ListPaged},
		script:     []reply{listOK("10", ""), watchOK(block, added("a", "11"))},
		cancelIn:   Apply,
		wantCalls:  []string{pageCall(""), watchCallFrom("10")},
		wantEvents: []string{"Init", "InitDone 10", "Apply a@11"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				c := newScriptedClient(t, cancel, tc.script...)
				fc := testingclock.NewFakeClock(time.Unix(0, 0)) // nobody steps it: sleeps last until cancelled
				opts := tc.opts
				opts.Clock = fc
				var events []string
				w := New[obj](c, opts)
				if tc.ready == nil && tc.cancelIn == 0 {
					cancel()
				}
				done := make(chan error, 1)
				go func() {
					done <- w.Run(ctx, func(ctx context.Context, ev Event[obj]) error {
						events = append(events, show(ev))
						if ev.Type == tc.cancelIn {
							cancel()
							return ctx.Err()
						}
						return nil
					})
				}()
				if tc.ready != nil {
					synctest.Wait() // Run blocks
					if !tc.ready(c, fc) {
						t.Fatal("Run is blocked elsewhere than the case says")
					}
					cancel()
				}
				select {
				case err := <-done:
					if err != nil {
						t.Errorf("Run = %v, want nil", err)
					}
				case <-time.After(5 * time.Second):
					t.Fatal("Run did not return within 5s of cancel")
				}
				if n := c.openStreams(); n != 0 {
					t.Errorf("%d stream(s) left open", n)
				}
				if c.ranOut() || c.unused() != 0 {
					t.Errorf("script: ran out %v, %d steps unused", c.ranOut(), c.unused())
				}
				diff(t, "calls", c.recorded(), tc.wantCalls)
				diff(t, "events", events, tc.wantEvents)
			})
		})
	}
}
