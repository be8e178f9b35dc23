package controller

import (
	"context"
	"errors"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// Request names the root object a reconcile is for. It carries no state:
// the reconcile reads the object from its Inputs.
type Request = store.Key

// Result says when to reconcile the object again after a success.
type Result struct {
	// RequeueAfter, when positive, reconciles the object again after it,
	// unless a change triggers it sooner; the earliest requeue wins. Zero
	// waits for the next change.
	RequeueAfter time.Duration
}

// Reconciler drives one root object towards its desired state.
//
// Reconcile is level-based and idempotent: it reads the current state from
// the controller's Inputs and acts on it, whatever triggered it (a change,
// a requeue, a retry, a reconcile-all). It is never called for the same
// Request twice at once; a trigger that arrives during a reconcile runs it
// once more afterwards. An error is retried with per-object exponential
// backoff (Options.Backoff) unless it is Terminal; the next success resets
// the backoff. A panic is recovered, counted and retried like an error.
// The ctx carries the reconcile's logger (klog.FromContext, with the
// object and a reconcile ID) and its Trigger.
type Reconciler interface {
	Reconcile(ctx context.Context, req Request) (Result, error)
}

// ReconcilerFunc adapts a function to a Reconciler.
type ReconcilerFunc func(ctx context.Context, req Request) (Result, error)

// Reconcile calls f.
func (f ReconcilerFunc) Reconcile(ctx context.Context, req Request) (Result, error) {
	return f(ctx, req)
}

// Mapper maps an object of a watched kind to the root objects it concerns
// (a Namespace to the sources mirrored into it). It is called for the
// object's current version and, on deletion, for its last one; it must be
// fast and never block: it reads stores, never the server.
type Mapper func(obj *object.Object) []Request

// TriggerKind says why a reconcile runs.
type TriggerKind uint8

const (
	// TriggerChange: the root object, an owned object or a watched object
	// changed (or the initial list).
	TriggerChange TriggerKind = iota + 1
	// TriggerRequeue: the previous reconcile asked for it (RequeueAfter).
	TriggerRequeue
	// TriggerRetry: the previous reconcile failed; backoff elapsed.
	TriggerRetry
	// TriggerAll: a reconcile of every root object was asked for
	// (Controller.ReconcileAll).
	TriggerAll
)

func (k TriggerKind) String() string {
	switch k {
	case TriggerChange:
		return "change"
	case TriggerRequeue:
		return "requeue"
	case TriggerRetry:
		return "retry"
	case TriggerAll:
		return "reconcile-all"
	}
	return "unknown"
}

// Trigger is why a reconcile runs: its kind and, for a change, the resource
// and key of the object that changed (the root itself, a child, or a watched
// object). Reconcilers must not branch on it; it is for logs and spans.
type Trigger struct {
	Kind     TriggerKind
	Resource string    // for TriggerChange: the resource of the changed object
	Key      store.Key // for TriggerChange: the changed object
}

type triggerKey struct{}

// WithTrigger returns ctx carrying t.
func WithTrigger(ctx context.Context, t Trigger) context.Context {
	return context.WithValue(ctx, triggerKey{}, t)
}

// TriggerFrom returns the trigger of the reconcile ctx belongs to.
func TriggerFrom(ctx context.Context) (Trigger, bool) {
	t, ok := ctx.Value(triggerKey{}).(Trigger)
	return t, ok
}

// terminalError marks an error that retrying cannot fix.
type terminalError struct{ err error }

func (e terminalError) Error() string { return e.err.Error() }
func (e terminalError) Unwrap() error { return e.err }

// Terminal marks err as one that retrying cannot fix (an invalid spec): the
// reconcile is counted as an error but not retried; the next change to the
// object triggers it again.
func Terminal(err error) error {
	if err == nil {
		return nil
	}
	return terminalError{err}
}

// IsTerminal reports whether err was marked Terminal.
func IsTerminal(err error) bool {
	var t terminalError
	return errors.As(err, &t)
}

// Backoff is the per-object retry delay after consecutive failures: Base
// after the first, doubled after each further one, at most Max.
type Backoff struct {
	Base, Max time.Duration
}

// DefaultBackoff is client-go's workqueue default: 5 ms to 1000 s.
var DefaultBackoff = Backoff{Base: 5 * time.Millisecond, Max: 1000 * time.Second}
