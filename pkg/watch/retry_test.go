package watch

import (
	"context"
	"fmt"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// TestRetryPolicy pins which failure RetryPolicy retries, given the failures
// in a row so far and the one before.
func TestRetryPolicy(t *testing.T) {
	forWatch := RetryPolicy{NotFound: true}
	oneShot := RetryPolicy{MaxFailures: 3, GiveUpOnTimeout: true}
	serverTimeout := apierrors.NewTimeoutError("the server was unable to return a response in the time allotted", 0)
	listTimeout := fmt.Errorf("listing pods: %w", context.DeadlineExceeded)
	watchTimeout := timedOut{err: fmt.Errorf("watching pods: %w", context.Canceled), after: time.Second}
	tests := []struct {
		name     string
		policy   RetryPolicy
		err      error
		failures int
		prev     error
		want     bool
	}{
		{"zero value: 500 retried", RetryPolicy{}, internal, 1, nil, true},
		{"zero value: 500 retried forever", RetryPolicy{}, internal, 1000, internal, true},
		{"zero value: connection error retried", RetryPolicy{}, errReset, 5, errReset, true},
		{"zero value: 429 retried", RetryPolicy{}, slowDown, 1, nil, true},
		{"zero value: 404 final", RetryPolicy{}, notFound, 1, nil, false},
		{"zero value: 403 final", RetryPolicy{}, forbidden, 1, nil, false},
		{"zero value: 400 final", RetryPolicy{}, badRequest, 1, nil, false},
		{"zero value: 422 final", RetryPolicy{}, invalid, 1, nil, false},
		{"zero value: 405 final", RetryPolicy{}, notSupported, 1, nil, false},
		{"zero value: 406 final", RetryPolicy{}, notAcceptable, 1, nil, false},
		{"zero value: first 401 retried", RetryPolicy{}, unauthorized, 1, nil, true},
		{"zero value: 401 after a 500 retried", RetryPolicy{}, unauthorized, 2, internal, true},
		{"zero value: second 401 in a row final", RetryPolicy{}, unauthorized, 2, unauthorized, false},
		{"zero value: wrapped 404 final", RetryPolicy{}, fmt.Errorf("watching pods: %w", notFound), 1, nil, false},
		{"NotFound: 404 retried", forWatch, notFound, 1, nil, true},
		{"NotFound: wrapped 404 retried forever", forWatch, fmt.Errorf("watching pods: %w", notFound), 1000, notFound, true},
		{"NotFound: 403 still final", forWatch, forbidden, 1, nil, false},
		{"NotFound: second 401 still final", forWatch, unauthorized, 2, unauthorized, false},
		{"MaxFailures: retried below the limit", oneShot, internal, 2, internal, true},
		{"MaxFailures: given up at the limit", oneShot, internal, 3, internal, false},
		{"MaxFailures: a first 401 at the limit is not retried", oneShot, unauthorized, 3, internal, false},
		{"MaxFailures: 404 final at once", oneShot, notFound, 1, nil, false},
		{"MaxFailures 1: nothing retried", RetryPolicy{MaxFailures: 1}, errReset, 1, nil, false},
		{"zero value: server timeout (504) retried", RetryPolicy{}, serverTimeout, 1, nil, true},
		{"zero value: LIST past RequestTimeout retried", RetryPolicy{}, listTimeout, 1, nil, true},
		{"zero value: WATCH past RequestTimeout retried", RetryPolicy{}, watchTimeout, 1, nil, true},
		{"GiveUpOnTimeout: server timeout (504) final", oneShot, serverTimeout, 1, nil, false},
		{"GiveUpOnTimeout: LIST past RequestTimeout final", oneShot, listTimeout, 1, nil, false},
		{"GiveUpOnTimeout: WATCH past RequestTimeout final", oneShot, watchTimeout, 1, nil, false},
		{"GiveUpOnTimeout: other errors still retried", oneShot, errReset, 1, nil, true},
		{"GiveUpOnTimeout: a canceled request is no timeout", oneShot, fmt.Errorf("x: %w", context.Canceled), 1, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.policy.retries(tc.err, tc.failures, tc.prev); got != tc.want {
				t.Errorf("retries(%v, %d, %v) = %v, want %v", describe(tc.err), tc.failures, tc.prev, got, tc.want)
			}
		})
	}
}

// TestRetryNotFound: with RetryPolicy.NotFound a watcher whose resource
// disappears (a CRD deleted) backs off and tries again, and reads the
// resource when it is back: the watch from the last resourceVersion is too
// old for the new resource (410), so it relists.
func TestRetryNotFound(t *testing.T) {
	opts := Options{List: ListPaged, Retry: RetryPolicy{NotFound: true}}
	r := runScript(t, opts, nil,
		listOK("10", "", "a"),
		watchOK(eof, deleted("a", "11")), // the CRD's objects go first
		watchFails(notFound),             // then the resource
		watchFails(notFound),
		watchFails(expired),   // back, with a new history
		listOK("30", "", "b"), // a Widget created afterwards
		watchOK(eof, added("c", "31")),
	)
	if r.err != nil {
		t.Fatalf("Run = %v, want nil (ended by the script)", r.err)
	}
	diff(t, "calls", r.client.recorded(), []string{pageCall(""), watchCallFrom("10"), watchCallFrom("11"),
		watchCallFrom("11"), watchCallFrom("11"), pageCall(""), watchCallFrom("30"), watchCallFrom("31")})
	diff(t, "events", r.events, []string{"Init", "InitApply a", "InitDone 10", "Delete a@11",
		"Init", "InitApply b", "InitDone 30", "Apply c@31"})
	diff(t, "retries", r.retries, []string{"NotFound(404) after 800ms", "NotFound(404) after 1.6s"})
	diff(t, "relists", r.relists, []string{"Expired(410)"})

	// Without it, the same 404 ends Run.
	r = runScript(t, Options{List: ListPaged}, nil, listOK("10", "", "a"), watchFails(notFound))
	if !IsTerminal(r.err) || !apierrors.IsNotFound(r.err) {
		t.Errorf("Run without Retry.NotFound = %v, want a terminal NotFound", r.err)
	}
}

// TestRetryMaxFailures: RetryPolicy.MaxFailures gives up on the last of so
// many failures in a row with a *TerminalError wrapping it; progress starts
// the count over.
func TestRetryMaxFailures(t *testing.T) {
	opts := Options{List: ListPaged, Retry: RetryPolicy{MaxFailures: 3}}
	r := runScript(t, opts, nil, listFails(internal), listFails(errReset), listFails(unavailable))
	if !IsTerminal(r.err) || !apierrors.IsServiceUnavailable(r.err) {
		t.Errorf("Run = %v, want a terminal error wrapping the last failure (503)", r.err)
	}
	if r.client.ranOut() || r.client.unused() != 0 {
		t.Errorf("the watcher went on after giving up")
	}
	diff(t, "calls", r.client.recorded(), []string{pageCall(""), pageCall(""), pageCall("")})
	diff(t, "retries", r.retries, []string{"InternalError(500) after 800ms", "connection reset by peer after 1.6s"})

	r = runScript(t, opts, nil,
		listFails(internal), listFails(internal), listOK("8", "c1", "a"), // a page: progress
		listFails(internal), listFails(internal), listOK("10", "", "b"),
	)
	if r.err != nil {
		t.Errorf("Run = %v, want nil: no three failures in a row", r.err)
	}
	diff(t, "events", r.events, []string{"Init", "InitApply a", "InitApply b", "InitDone 10"})
}
