package controller

import (
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel/trace"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
)

// Options tune a controller. The zero value is usable.
type Options struct {
	// Concurrency is the number of reconciles that may run at once (never
	// two of one object); 0 is 1.
	Concurrency int
	// Debounce, when positive, waits this long after a change before
	// reconciling, so that a burst of changes to one object reconciles once.
	// The burst's first change sets the time (the earliest wins), so an
	// object that keeps changing is still reconciled every Debounce.
	Debounce time.Duration
	// Backoff is the per-object retry delay; the zero value is DefaultBackoff.
	Backoff Backoff
	// Logger is the controller's logger; each reconcile's carries the
	// controller name, the object and a reconcile ID. The zero value
	// discards.
	Logger logr.Logger
	// Metrics receives the controller's metrics (controller-runtime's
	// names; see metrics.go); nil records none.
	Metrics *Metrics
	// OnReconcile, if set, is called after every reconcile (the terminal's
	// one line per reconcile); it must be fast and never block.
	OnReconcile func(ReconcileRecord)
	// ForceStop, when closed after Run's ctx ended, cancels the contexts of
	// the reconciles still in flight (the CLI closes it on a second
	// SIGINT: ForceStop: force.Done()); nil waits for them however long
	// they take.
	ForceStop <-chan struct{}
	// TracerProvider makes one span per reconcile (see tracing.go); nil
	// makes none.
	TracerProvider trace.TracerProvider
	// Namespace, when set, reconciles only the requests of that namespace
	// (and of cluster-scoped roots): the inputs may read more (the
	// mirror's copies live in other namespaces than their sources), but a
	// request of another namespace is dropped before it is queued, as a
	// predicate of controller-runtime's would drop it.
	Namespace string
}

// ReconcileRecord is what one reconcile did.
type ReconcileRecord struct {
	Controller  string
	Request     Request
	Trigger     Trigger
	ReconcileID string
	Result      Result
	Err         error // nil on success; a panic is an error too
	Duration    time.Duration
}

// Builder assembles a controller: one For input, any number of Owns and
// Watches inputs, then Build. Every input is a Handle on the Set's shared
// reflector of that resource and scope.
type Builder struct {
	name   string
	set    *reflector.Set
	inputs []*Input
	err    error
}

// NewBuilder starts a controller called name (its metrics label, log name
// and, by convention, its field manager) reading from set.
func NewBuilder(name string, set *reflector.Set) *Builder {
	return &Builder{name: name, set: set}
}

func (b *Builder) add(in *Input) *Input {
	// A controller's stores live as long as it does, and most of what they
	// hold is never read: their objects are kept packed (kube.Scope.Pack).
	in.scope.Pack = true
	// An input reads the fields it needs: it shares the reflector of
	// another controller that prunes less.
	b.set.Expect(in.resource, in.scope)
	b.inputs = append(b.inputs, in)
	return in
}

// For sets the root kind: every object of res in scope is reconciled.
func (b *Builder) For(res kube.Resource, scope kube.Scope) *Input {
	for _, in := range b.inputs {
		if in.role == RoleFor {
			b.err = errors.Join(b.err, fmt.Errorf("controller %s: For called twice", b.name))
		}
	}
	return b.add(&Input{resource: res, scope: scope, role: RoleFor})
}

// Owns adds a child kind: a change to a child reconciles the root object
// its controller ownerReference names.
func (b *Builder) Owns(res kube.Resource, scope kube.Scope) *Input {
	return b.add(&Input{resource: res, scope: scope, role: RoleOwns})
}

// Watches adds a kind whose changes reconcile the roots mapper returns.
func (b *Builder) Watches(res kube.Resource, scope kube.Scope, mapper Mapper) *Input {
	if mapper == nil {
		b.err = errors.Join(b.err, fmt.Errorf("controller %s: Watches %s without a mapper", b.name, res))
	}
	return b.add(&Input{resource: res, scope: scope, role: RoleWatches, mapper: mapper})
}

// Build returns the controller that runs r. It acquires no handle yet: Run
// does.
func (b *Builder) Build(r Reconciler, opts Options) (*Controller, error) {
	if b.err != nil {
		return nil, b.err
	}
	if !hasFor(b.inputs) {
		return nil, fmt.Errorf("controller %s: no For input", b.name)
	}
	if r == nil {
		return nil, fmt.Errorf("controller %s: no reconciler", b.name)
	}
	return newController(b.name, b.set, b.inputs, r, opts), nil
}

func hasFor(inputs []*Input) bool {
	for _, in := range inputs {
		if in.role == RoleFor {
			return true
		}
	}
	return false
}
