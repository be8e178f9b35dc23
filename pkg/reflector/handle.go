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
func (h *Handle) Resource() kube.Resource { return h.e.r.Resource() }

// Columns are the server's printer columns of the resource, once known.
func (h *Handle) Columns() []object.Column { return h.e.r.Columns() }

// Synced is closed once the store has its first list.
func (h *Handle) Synced() <-chan struct{} { return h.e.r.store.Synced() }

// Done is closed when the reflector stopped: it failed for good (Err says
// why) or its last handle was released.
func (h *Handle) Done() <-chan struct{} { return h.e.done }

// Err is, once Done is closed, the error that stopped the reflector for
// good (a *watch.TerminalError, whose message names the resource when the
// client's errors do, as pkg/kube's do); nil before, or when it was
// released.
func (h *Handle) Err() error {
	select {
	case <-h.e.done:
		return h.e.err
	default:
		return nil
	}
}

func (h *Handle) keeps(k store.Key) bool { return h.namespace == "" || k.Namespace == h.namespace }

func (h *Handle) keepsObject(obj *object.Object) bool { return h.keeps(store.KeyOf(obj)) }

// Get returns the stored object under k, if it is in the handle's scope.
func (h *Handle) Get(k store.Key) (*object.Object, bool) {
	if !h.keeps(k) {
		return nil, false
	}
	return h.e.r.store.Get(k)
}

// Snapshot returns the stored objects of the handle's scope, sorted by
// namespace and name, and the resourceVersion they are current to.
func (h *Handle) Snapshot() ([]*object.Object, string) {
	if h.namespace == "" {
		return h.e.r.store.Snapshot(nil)
	}
	return h.e.r.store.Snapshot(h.keepsObject)
}

// List returns the stored objects of the handle's scope, sorted by
// namespace and name.
func (h *Handle) List() []*object.Object {
	items, _ := h.Snapshot()
	return items
}

// InNamespace returns the stored objects of namespace ns in the handle's
// scope, sorted by name. It reads the store's namespace index, so its cost
// is that of the namespace, not of the whole store: a reconciler that reads
// one namespace's objects asks here rather than filtering List.
func (h *Handle) InNamespace(ns string) []*object.Object {
	if !h.keeps(store.Key{Namespace: ns}) {
		return nil
	}
	items, _ := h.e.r.store.ByIndex(store.NamespaceIndex, ns, nil) // the namespace index always exists
	return items
}

// Subscribe subscribes to the changes of the handle's scope, in the mode
// opts ask for (see store.Subscription). It ends when ctx ends or it is
// closed; Release does not close it.
func (h *Handle) Subscribe(ctx context.Context, opts store.SubscribeOptions) *store.Subscription[*object.Object] {
	return h.e.r.store.Subscribe(ctx, h.narrow(opts))
}

// SubscribeFrom starts an Ordered subscription to the changes of the
// handle's scope after resourceVersion rv, from the store's window (see
// SetOptions.Window and store.Store.SubscribeFrom for its errors).
func (h *Handle) SubscribeFrom(ctx context.Context, rv string, opts store.SubscribeOptions) (*store.Subscription[*object.Object], error) {
	sub, err := h.e.r.store.SubscribeFrom(ctx, rv, h.narrow(opts))
	if err != nil {
		return nil, fmt.Errorf("resuming %s after resourceVersion %s: %w", h.Resource(), rv, err)
	}
	return sub, nil
}

// narrow keeps a subscription's changes to the handle's namespace, beside
// what opts.Keep keeps.
func (h *Handle) narrow(opts store.SubscribeOptions) store.SubscribeOptions {
	if h.namespace == "" {
		return opts
	}
	if keep := opts.Keep; keep != nil {
		opts.Keep = func(k store.Key) bool { return h.keeps(k) && keep(k) }
	} else {
		opts.Keep = h.keeps
	}
	return opts
}

// StateAt returns the objects of the handle's scope as they were at
// resourceVersion rv, in the API server's order, from the store's window
// (see store.Store.StateAt for its errors; Backfill for a resourceVersion
// before the store's first list).
func (h *Handle) StateAt(rv string) ([]*object.Object, error) {
	items, err := h.e.r.store.StateAt(rv)
	if err != nil {
		return nil, fmt.Errorf("reading %s at resourceVersion %s: %w", h.Resource(), rv, err)
	}
	if h.namespace == "" {
		return items, nil
	}
	kept := items[:0]
	for _, o := range items {
		if h.keepsObject(o) {
			kept = append(kept, o)
		}
	}
	return kept, nil
}

// Backfill makes the store's window reach back to resourceVersion rv when
// the server still holds the changes after it (see Reflector.Backfill).
func (h *Handle) Backfill(ctx context.Context, rv string) error { return h.e.r.Backfill(ctx, rv) }

// OldestResourceVersion is the oldest resourceVersion the store's window
// answers SubscribeFrom and StateAt for ("" when it keeps none).
func (h *Handle) OldestResourceVersion() string { return h.e.r.store.OldestResourceVersion() }

// ResourceVersion is the resourceVersion the store is current to.
func (h *Handle) ResourceVersion() string { return h.e.r.store.ResourceVersion() }

// Len is the number of objects the reflector's store holds (all of its
// scope, not only the handle's namespace).
func (h *Handle) Len() int { return h.e.r.store.Len() }

// Release ends the handle; the last one released stops the reflector and
// waits for it. It is idempotent.
func (h *Handle) Release() { h.release.Do(func() { h.set.release(h.e) }) }

func joinErrors(errs []error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}
