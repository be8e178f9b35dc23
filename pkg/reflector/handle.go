package reflector

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// Handle is one consumer's use of a shared reflector, read-only: what it
// reads and subscribes to is narrowed to the scope it asked for (one
// namespace of a reflector of all of them). Its methods are safe for
// concurrent use. After Release, its reads answer from the store as the
// reflector last wrote it, which no longer follows the server once the
// last handle is gone.
type Handle struct {
	set       *Set
	e         *entry
	namespace string // narrows a covering reflector's store; "" reads it whole
	release   sync.Once
}

// Resource is the resource the handle reads.
func (l *Handle) Resource() kube.Resource { return l.e.r.Resource() }

// Columns are the server's printer columns of the resource, once known.
func (l *Handle) Columns() []object.Column { return l.e.r.Columns() }

// Synced is closed once the store has its first list.
func (l *Handle) Synced() <-chan struct{} { return l.e.r.store.Synced() }

// Done is closed when the reflector stopped: it failed for good (Err says
// why) or its last handle was released.
func (l *Handle) Done() <-chan struct{} { return l.e.done }

// Err is, once Done is closed, the error that stopped the reflector for
// good (a *watch.TerminalError, whose message names the resource when the
// client's errors do, as pkg/kube's do); nil before, or when it was
// released.
func (l *Handle) Err() error {
	select {
	case <-l.e.done:
		return l.e.err
	default:
		return nil
	}
}

func (l *Handle) keeps(k store.Key) bool { return l.namespace == "" || k.Namespace == l.namespace }

func (l *Handle) keepsObject(obj *object.Object) bool { return l.keeps(store.KeyOf(obj)) }

// Get returns the stored object under k, if it is in the handle's scope.
func (l *Handle) Get(k store.Key) (*object.Object, bool) {
	if !l.keeps(k) {
		return nil, false
	}
	return l.e.r.store.Get(k)
}

// Snapshot returns the stored objects of the handle's scope, sorted by
// namespace and name, and the resourceVersion they are current to.
func (l *Handle) Snapshot() ([]*object.Object, string) {
	if l.namespace == "" {
		return l.e.r.store.Snapshot(nil)
	}
	return l.e.r.store.Snapshot(l.keepsObject)
}

// List returns the stored objects of the handle's scope, sorted by
// namespace and name.
func (l *Handle) List() []*object.Object {
	items, _ := l.Snapshot()
	return items
}

// InNamespace returns the stored objects of namespace ns in the handle's
// scope, sorted by name. It reads the store's namespace index, so its cost
// is that of the namespace, not of the whole store: a reconciler that reads
// one namespace's objects asks here rather than filtering List.
func (l *Handle) InNamespace(ns string) []*object.Object {
	if !l.keeps(store.Key{Namespace: ns}) {
		return nil
	}
	items, _ := l.e.r.store.ByIndex(store.NamespaceIndex, ns, nil) // the namespace index always exists
	return items
}

// Subscribe subscribes to the changes of the handle's scope, in the mode
// opts ask for (see store.Subscription). It ends when ctx ends or it is
// closed; Release does not close it.
func (l *Handle) Subscribe(ctx context.Context, opts store.SubscribeOptions) *store.Subscription[*object.Object] {
	if l.namespace != "" {
		if keep := opts.Keep; keep != nil {
			opts.Keep = func(k store.Key) bool { return l.keeps(k) && keep(k) }
		} else {
			opts.Keep = l.keeps
		}
	}
	return l.e.r.store.Subscribe(ctx, opts)
}

// SubscribeFrom starts an Ordered subscription to the changes of the
// handle's scope after resourceVersion rv, from the store's window (see
// SetOptions.Window and store.Store.SubscribeFrom for its errors).
func (l *Handle) SubscribeFrom(ctx context.Context, rv string, opts store.SubscribeOptions) (*store.Subscription[*object.Object], error) {
	if l.namespace != "" {
		if keep := opts.Keep; keep != nil {
			opts.Keep = func(k store.Key) bool { return l.keeps(k) && keep(k) }
		} else {
			opts.Keep = l.keeps
		}
	}
	sub, err := l.e.r.store.SubscribeFrom(ctx, rv, opts)
	if err != nil {
		return nil, fmt.Errorf("resuming %s after resourceVersion %s: %w", l.Resource(), rv, err)
	}
	return sub, nil
}

// StateAt returns the objects of the handle's scope as they were at
// resourceVersion rv, in the API server's order, from the store's window
// (see store.Store.StateAt for its errors; Backfill for a resourceVersion
// before the store's first list).
func (l *Handle) StateAt(rv string) ([]*object.Object, error) {
	items, err := l.e.r.store.StateAt(rv)
	if err != nil {
		return nil, fmt.Errorf("reading %s at resourceVersion %s: %w", l.Resource(), rv, err)
	}
	if l.namespace == "" {
		return items, nil
	}
	kept := items[:0]
	for _, o := range items {
		if l.keepsObject(o) {
			kept = append(kept, o)
		}
	}
	return kept, nil
}

// Backfill makes the store's window reach back to resourceVersion rv when
// the server still holds the changes after it (see Reflector.Backfill).
func (l *Handle) Backfill(ctx context.Context, rv string) error { return l.e.r.Backfill(ctx, rv) }

// OldestResourceVersion is the oldest resourceVersion the store's window
// answers SubscribeFrom and StateAt for ("" when it keeps none).
func (l *Handle) OldestResourceVersion() string { return l.e.r.store.OldestResourceVersion() }

// ResourceVersion is the resourceVersion the store is current to.
func (l *Handle) ResourceVersion() string { return l.e.r.store.ResourceVersion() }

// Len is the number of objects the reflector's store holds (all of its
// scope, not only the handle's namespace).
func (l *Handle) Len() int { return l.e.r.store.Len() }

// Release ends the handle; the last one released stops the reflector and
// waits for it. It is idempotent.
func (l *Handle) Release() { l.release.Do(func() { l.set.release(l.e) }) }

func joinErrors(errs []error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}
