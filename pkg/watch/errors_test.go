package watch

import (
	"context"
	"errors"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// TestTerminalErrors: errors that retrying cannot fix end Run with a
// *TerminalError wrapping the server's error, wherever they come from, and
// nothing is retried.
func TestTerminalErrors(t *testing.T) {
	errs := []struct {
		name string
		err  error
		is   func(error) bool
	}{
		{"Forbidden", forbidden, apierrors.IsForbidden},
		{"NotFound", notFound, apierrors.IsNotFound},
		{"Forbidden wrapped by the client", fmt.Errorf("listing pods: %w", forbidden), apierrors.IsForbidden},
	}
	where := []struct {
		name      string
		opts      Options
		script    func(error) []reply
		wantCalls []string
	}{{
		name:      "on the first List",
		opts:      Options{List: ListPaged},
		script:    func(err error) []reply { return []reply{listFails(err)} },
		wantCalls: []string{pageCall("")},
	}, {
		name:      "on a later List page",
		opts:      Options{List: ListPaged},
		script:    func(err error) []reply { return []reply{listOK("8", "c1", "a"), listFails(err)} },
		wantCalls: []string{pageCall(""), pageCall("c1")},
	}, {
		name:      "on the List after a refused streaming list",
		script:    func(err error) []reply { return []reply{watchFails(badRequest), listFails(err)} },
		wantCalls: []string{streamingListCall(), pageCall("")},
	}, {
		name:      "opening a streaming list",
		script:    func(err error) []reply { return []reply{watchFails(err)} },
		wantCalls: []string{streamingListCall()},
	}, {
		name:      "opening a watch",
		opts:      Options{List: ListPaged},
		script:    func(err error) []reply { return []reply{listOK("10", ""), watchFails(err)} },
		wantCalls: []string{pageCall(""), watchCallFrom("10")},
	}, {
		name:      "as an ERROR event of a streaming list",
		script:    func(err error) []reply { return []reply{watchOK(block, added("a", "5"), errorEvent(err))} },
		wantCalls: []string{streamingListCall()},
	}, {
		name:      "as an ERROR event while watching",
		opts:      Options{List: ListPaged},
		script:    func(err error) []reply { return []reply{listOK("10", ""), watchOK(block, errorEvent(err))} },
		wantCalls: []string{pageCall(""), watchCallFrom("10")},
	}}
	for _, e := range errs {
		for _, wh := range where {
			t.Run(e.name+"/"+wh.name, func(t *testing.T) {
				r := runScript(t, wh.opts, nil, wh.script(e.err)...)
				var te *TerminalError
				if !errors.As(r.err, &te) || !IsTerminal(r.err) {
					t.Fatalf("Run = %#v, want a *TerminalError", r.err)
				}
				if te.Err != e.err || !errors.Is(r.err, e.err) {
					t.Errorf("TerminalError.Err = %v, want the server's error %v", te.Err, e.err)
				}
				if !e.is(r.err) || !e.is(errors.Unwrap(r.err)) {
					t.Errorf("%s not recognised through the TerminalError: %v", e.name, r.err)
				}
				if r.err.Error() != e.err.Error() {
					t.Errorf("Error() = %q, want %q", r.err.Error(), e.err.Error())
				}
				if r.client.ranOut() || r.client.unused() != 0 {
					t.Errorf("the watcher went on after a terminal error (ran out %v, %d steps unused)", r.client.ranOut(), r.client.unused())
				}
				diff(t, "calls", r.client.recorded(), wh.wantCalls)
				diff(t, "retries", r.retries, nil)
			})
		}
	}
}

// TestHandlerError: an error from the handler ends Run as it is, whatever it
// looks like, and the open watch is closed.
func TestHandlerError(t *testing.T) {
	paged := Options{List: ListPaged}
	tests := []struct {
		name       string
		opts       Options
		failOn     EventType
		err        error
		script     []reply
		wantCalls  []string
		wantEvents []string
	}{{
		name:       "on Init, before any request",
		failOn:     Init,
		wantEvents: []string{"Init"},
	}, {
		name:       "on InitApply of a streaming list",
		failOn:     InitApply,
		script:     []reply{watchOK(block, added("a", "5"), added("b", "6"))},
		wantCalls:  []string{streamingListCall()},
		wantEvents: []string{"Init", "InitApply a@5"},
	}, {
		name:       "on InitApply of a page",
		opts:       paged,
		failOn:     InitApply,
		script:     []reply{listOK("8", "c1", "a", "b")},
		wantCalls:  []string{pageCall("")},
		wantEvents: []string{"Init", "InitApply a"},
	}, {
		name:       "on InitDone of a streaming list",
		failOn:     InitDone,
		script:     []reply{watchOK(block, added("a", "5"), initialEventsEnd("10"))},
		wantCalls:  []string{streamingListCall()},
		wantEvents: []string{"Init", "InitApply a@5", "InitDone 10"},
	}, {
		name:       "on InitDone of a paged list",
		opts:       paged,
		failOn:     InitDone,
		script:     []reply{listOK("10", "", "a")},
		wantCalls:  []string{pageCall("")},
		wantEvents: []string{"Init", "InitApply a", "InitDone 10"},
	}, {
		name:       "on Apply",
		opts:       paged,
		failOn:     Apply,
		script:     []reply{listOK("10", ""), watchOK(block, added("a", "11"), added("b", "12"))},
		wantCalls:  []string{pageCall(""), watchCallFrom("10")},
		wantEvents: []string{"Init", "InitDone 10", "Apply a@11"},
	}, {
		name:       "on Delete",
		opts:       paged,
		failOn:     Delete,
		script:     []reply{listOK("10", ""), watchOK(block, deleted("a", "11"))},
		wantCalls:  []string{pageCall(""), watchCallFrom("10")},
		wantEvents: []string{"Init", "InitDone 10", "Delete a@11"},
	}, {
		name:       "on Bookmark",
		opts:       paged,
		failOn:     Bookmark,
		script:     []reply{listOK("10", ""), watchOK(block, bookmark("11"))},
		wantCalls:  []string{pageCall(""), watchCallFrom("10")},
		wantEvents: []string{"Init", "InitDone 10", "Bookmark 11"},
	}, {
		name:       "that looks like a 403: returned as is, not terminal",
		opts:       paged,
		failOn:     Apply,
		err:        forbidden,
		script:     []reply{listOK("10", ""), watchOK(block, added("a", "11"))},
		wantCalls:  []string{pageCall(""), watchCallFrom("10")},
		wantEvents: []string{"Init", "InitDone 10", "Apply a@11"},
	}, {
		name:       "that looks like a 410: returned as is, no relist",
		opts:       paged,
		failOn:     Apply,
		err:        expired,
		script:     []reply{listOK("10", ""), watchOK(block, added("a", "11"))},
		wantCalls:  []string{pageCall(""), watchCallFrom("10")},
		wantEvents: []string{"Init", "InitDone 10", "Apply a@11"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.err
			if want == nil {
				want = errBoom
			}
			r := runScript(t, tc.opts, func(_ context.Context, ev Event[obj]) error {
				if ev.Type == tc.failOn {
					return want
				}
				return nil
			}, tc.script...)
			if r.err != want || !errors.Is(r.err, want) {
				t.Errorf("Run = %#v, want exactly %#v", r.err, want)
			}
			if IsTerminal(r.err) {
				t.Errorf("a handler error became a TerminalError")
			}
			if r.client.ranOut() || r.client.unused() != 0 {
				t.Errorf("the watcher went on after the handler failed")
			}
			diff(t, "calls", r.client.recorded(), tc.wantCalls)
			diff(t, "events", r.events, tc.wantEvents)
			diff(t, "retries", r.retries, nil)
		})
	}
}

// TestUnauthorizedRetriedOnce: credential plugins refresh a token only after
// a request got 401, so one 401 is retried and two in a row are terminal.
func TestUnauthorizedRetriedOnce(t *testing.T) {
	opts := Options{List: ListPaged}
	r := runScript(t, opts, nil, listFails(unauthorized), listOK("10", ""))
	if r.err != nil || len(r.retries) != 1 {
		t.Errorf("one 401: Run = %v with retries %v, want nil and one retry", r.err, r.retries)
	}
	r = runScript(t, opts, nil, listFails(unauthorized), listFails(unauthorized))
	if !IsTerminal(r.err) || !apierrors.IsUnauthorized(r.err) {
		t.Errorf("two 401s in a row: Run = %v, want a terminal Unauthorized", r.err)
	}
	r = runScript(t, opts, nil, listFails(unauthorized), listOK("8", "c1", "a"), listFails(unauthorized), listOK("10", ""))
	if r.err != nil || len(r.retries) != 2 {
		t.Errorf("401s apart: Run = %v with retries %v, want nil and two retries", r.err, r.retries)
	}
}
