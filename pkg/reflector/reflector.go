package reflector

import (
	"context"
	"sync"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// Client is what a Reflector lists and watches through: one resource in
// one scope. Besides watch.Client's contract, it hands back the stored
// objects Reuse gives it when the server sends them again unchanged, and
// knows the server's printer columns once it has seen them (nil before, or
// when it asks for no Table). *kube.Client implements it; it must be safe
// for concurrent use.
type Client interface {
	watch.Client[*object.Object]
	Resource() kube.Resource
	Reuse(object.Known)
	Columns() []object.Column
}

var _ Client = (*kube.Client)(nil)

// Hooks tell a consumer what a reflector goes through. Every hook is
// optional and is called from the reflector's goroutine, so it must be quick
// and must not call back into the Reflector or its Set.
type Hooks struct {
	// OnError is told about every error the watcher retries, with the delay
	// before the retry; nil leaves watch.Options.OnError as it is.
	OnError func(res kube.Resource, err error, retryIn time.Duration)
	// OnRelist is told when the server answered 410 Gone and a new list
	// starts; nil leaves watch.Options.OnRelist as it is.
	OnRelist func(res kube.Resource, err error)
	// OnProgress is told how many objects the list in progress has
	// brought so far, once per object.
	OnProgress func(res kube.Resource, listed int)
	// OnListed is told that a list ended, just before the store swaps it
	// in (so before Synced closes after the first list).
	OnListed func(res kube.Resource)
	// OnEvent is told of every live event from the server's watch, an
	// apply (deleted false: the API server's ADDED or MODIFIED) or a delete
	// (deleted true), just before the store applies it; the objects of a
	// list are told to OnProgress instead.
	OnEvent func(res kube.Resource, deleted bool)
	// OnWatchRestart is told when the watch is open again after the
	// previous one ended (see watch.Options.OnWatchRestart): a resume, not a
	// relist; nil leaves watch.Options.OnWatchRestart as it is.
	OnWatchRestart func(res kube.Resource)
}

// Reflector is one resource's client and store: Run lists and watches
// through the client into the store, its only writer; any number of
// readers read the store meanwhile.
type Reflector struct {
	client Client
	store  *store.Store[*object.Object]

	backfillMu sync.Mutex // one Backfill at a time
}

// NewWithStore gives client a store made with opts, and the store's objects
// to client, so that a relist reuses the unchanged objects instead of
// decoding them again. The store may keep its latest changes (Window), so
// that a subscriber may resume after a resourceVersion
// (Handle.SubscribeFrom), or list in the server's order (ListOrder).
func NewWithStore(client Client, opts store.Options[*object.Object]) *Reflector {
	st := store.New(opts)
	client.Reuse(func(namespace, name string) (*object.Object, bool) {
		return st.Get(store.Key{Namespace: namespace, Name: name})
	})
	return &Reflector{client: client, store: st}
}

// Resource is the resource r reflects.
func (r *Reflector) Resource() kube.Resource { return r.client.Resource() }

// Store is r's store, to read and subscribe to; only Run writes it.
func (r *Reflector) Store() *store.Store[*object.Object] { return r.store }

// Columns are the server's printer columns of the resource, once known.
func (r *Reflector) Columns() []object.Column { return r.client.Columns() }

// Run lists and watches into r's store until ctx ends (nil) or the watcher
// stops for good (its *watch.TerminalError). It must run at most once at a
// time: the store has one writer.
func (r *Reflector) Run(ctx context.Context, opts watch.Options, hooks Hooks) error {
	return r.run(ctx, opts, hooks, nil)
}

// run is Run starting from what seeder returns, if anything (see
// watch.Watcher.WithSeed).
func (r *Reflector) run(ctx context.Context, opts watch.Options, hooks Hooks, seeder watch.Seeder[*object.Object]) error {
	res := r.client.Resource()
	if hooks.OnError != nil {
		opts.OnError = func(err error, retryIn time.Duration) { hooks.OnError(res, err, retryIn) }
	}
	if hooks.OnRelist != nil {
		opts.OnRelist = func(err error) { hooks.OnRelist(res, err) }
	}
	if hooks.OnWatchRestart != nil {
		opts.OnWatchRestart = func() { hooks.OnWatchRestart(res) }
	}
	listed := 0
	return watch.New(r.client, opts).WithSeed(seeder).Run(ctx, func(ctx context.Context, ev watch.Event[*object.Object]) error {
		switch ev.Type {
		case watch.Init:
			listed = 0
		case watch.InitApply:
			if listed++; hooks.OnProgress != nil {
				hooks.OnProgress(res, listed)
			}
		case watch.InitDone:
			if hooks.OnListed != nil {
				hooks.OnListed(res)
			}
		case watch.Apply, watch.Delete:
			if hooks.OnEvent != nil {
				hooks.OnEvent(res, ev.Type == watch.Delete)
			}
		}
		return r.store.Apply(ctx, ev)
	})
}
