package watch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/wait"
)

// Server answers the scripts use.
var (
	podsGR      = schema.GroupResource{Resource: "pods"}
	errReset    = errors.New("connection reset by peer")
	errBoom     = errors.New("handler failed")
	expired     = apierrors.NewResourceExpired("too old resource version: 5 (10)")
	gone        = apierrors.NewGone("gone")
	internal    = apierrors.NewInternalError(errors.New("etcd leader changed"))
	unavailable = apierrors.NewServiceUnavailable("apiserver is shutting down")
	slowDown    = apierrors.NewTooManyRequests("slow down", 7)

	badRequest = apierrors.NewBadRequest("sendInitialEvents is not supported")
	invalid    = apierrors.NewInvalid(schema.GroupKind{Group: "meta.k8s.io", Kind: "ListOptions"}, "",
		field.ErrorList{field.Forbidden(field.NewPath("sendInitialEvents"), "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled")})
	notSupported  = apierrors.NewMethodNotSupported(podsGR, "watch")
	notAcceptable = apierrors.NewGenericServerResponse(http.StatusNotAcceptable, "watch", podsGR, "", "", 0, false)

	forbidden    = apierrors.NewForbidden(podsGR, "", errors.New(`user "bob" cannot watch pods`))
	notFound     = apierrors.NewNotFound(podsGR, "")
	unauthorized = apierrors.NewUnauthorized("token expired")
)

// testBackoff is DefaultBackoff without jitter, so that delays are exact.
var testBackoff = wait.Backoff{Duration: 800 * time.Millisecond, Factor: 2, Cap: 30 * time.Second, Steps: 1 << 30}

// run is what one Run did.
type run struct {
	client  *scriptedClient
	clock   *stepClock
	events  []string        // show of every event, in order
	retries []string        // "<describe(err)> after <retryIn>", one per OnError
	relists []string        // describe(err), one per OnRelist
	delays  []time.Duration // retryIn of every OnError
	err     error           // what Run returned
}

// runScript runs a Watcher over a scripted client until Run returns: when the
// script runs out (the client cancels the context), the handler fails or the
// watcher gives up. Unless opts say otherwise it backs off by testBackoff on
// a stepClock (no real sleeping). handle, if not nil, sees every event after
// it is recorded. It checks what must hold after every Run: no stream left
// open, every watch timeout in range, and OnError and the clock agreeing on
// every sleep.
func runScript(t *testing.T, opts Options, handle Handler[obj], script ...reply) *run {
	t.Helper()
	return runSeeded(t, opts, nil, handle, script...)
}

// runSeeded is runScript with a watcher given seed (see WithSeed).
func runSeeded(t *testing.T, opts Options, seed Seeder[obj], handle Handler[obj], script ...reply) *run {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	r := &run{client: newScriptedClient(t, cancel, script...)}
	if opts.Backoff == nil {
		b := testBackoff
		opts.Backoff = &b
	}
	if opts.Clock == nil {
		r.clock = newStepClock()
		opts.Clock = r.clock
	}
	var mu sync.Mutex
	opts.OnError = func(err error, retryIn time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		r.retries = append(r.retries, fmt.Sprintf("%s after %v", describe(err), retryIn))
		r.delays = append(r.delays, retryIn)
	}
	opts.OnRelist = func(err error) {
		mu.Lock()
		defer mu.Unlock()
		r.relists = append(r.relists, describe(err))
	}
	w := New[obj](r.client, opts).WithSeed(seed)
	done := make(chan error, 1)
	go func() {
		done <- w.Run(ctx, func(ctx context.Context, ev Event[obj]) error {
			mu.Lock()
			r.events = append(r.events, show(ev))
			mu.Unlock()
			if handle != nil {
				return handle(ctx, ev)
			}
			return nil
		})
	}()
	select {
	case r.err = <-done:
	case <-time.After(30 * time.Second):
		cancel()
		select {
		case <-done:
		case <-time.After(time.Second):
		}
		t.Fatalf("Run did not return within 30s; calls so far:\n%s", strings.Join(r.client.recorded(), "\n"))
	}
	if n := r.client.openStreams(); n != 0 {
		t.Errorf("%d stream(s) left open after Run returned", n)
	}
	checkWatchTimeouts(t, r.client.rawCalls(), w.opts.MinWatchTimeout)
	if r.clock != nil && !slices.Equal(r.clock.slept(), r.delays) {
		t.Errorf("slept %v, but OnError announced %v", r.clock.slept(), r.delays)
	}
	return r
}

// checkWatchTimeouts checks that every WATCH asked for a timeout that
// timeoutOK accepts.
func checkWatchTimeouts(t *testing.T, calls []call, lo time.Duration) {
	t.Helper()
	for i, c := range calls {
		if c.Kind == watchCall && !timeoutOK(c.Watch.TimeoutSeconds, lo) {
			t.Errorf("call %d (%v): TimeoutSeconds = %d, want in [%v, %v) and at least 1", i+1, c, c.Watch.TimeoutSeconds, lo, 2*lo)
		}
	}
}

// timeoutOK: a watch timeout lies in [lo, 2*lo), in whole seconds, and is
// never 0, which would mean no timeout at all.
func timeoutOK(seconds int64, lo time.Duration) bool {
	if lo < time.Second {
		return seconds == 1
	}
	d := time.Duration(seconds) * time.Second
	return d >= lo.Truncate(time.Second) && d < 2*lo
}

// diff fails the test when got and want differ, showing both in full.
func diff(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got: %s\nwant: %s", what, strings.Join(got, "\n      "), strings.Join(want, "\n      "))
	}
}
