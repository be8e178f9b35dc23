package controller

import (
	"context"
	"fmt"
	"sync"

	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// Controller runs one reconciler over its inputs. See Run. A Controller
// runs once.
type Controller struct {
	name   string
	set    *reflector.Set
	inputs []*Input
	root   *Input // the For input
	r      Reconciler
	opts   Options
	sched  *scheduler
	tracer trace.Tracer

	ready     chan struct{}
	readyOnce sync.Once

	mu      sync.Mutex
	started bool // Run was called
	running bool // the handles are acquired: ReconcileAll may read the root
}

func newController(name string, set *reflector.Set, inputs []*Input, r Reconciler, opts Options) *Controller {
	opts.Concurrency = max(opts.Concurrency, 1)
	opts.Backoff = opts.Backoff.orDefault()
	c := &Controller{name: name, set: set, inputs: inputs, r: r, opts: opts, ready: make(chan struct{})}
	for _, in := range inputs {
		if in.role == RoleFor {
			c.root = in
		}
	}
	c.sched = newScheduler(opts.Backoff, opts.Metrics.schedulerHooks(name))
	tp := opts.TracerProvider
	if tp == nil {
		tp = noop.NewTracerProvider()
	}
	c.tracer = tp.Tracer(tracerName)
	return c
}

// Name is the controller's name.
func (c *Controller) Name() string { return c.name }

// Run acquires the controller's inputs from the Set, subscribes to them
// (Coalescing), and reconciles until ctx ends: the initial list of every
// input first queues every root object, live changes go before what is
// left of that backlog. The first reconcile starts once every input has
// synced (Ready), as controller-runtime waits for its caches: a reconciler
// never reads an input that is still listing.
//
// When ctx ends, Run starts no new reconcile, waits for the ones in flight
// (their ctx carries ctx's values but is not cancelled with it), releases
// its handles and returns nil. Closing Options.ForceStop then cancels the
// contexts of the reconciles in flight (a second SIGINT); Run still waits
// for them to return. When an input's reflector stops for good (its
// Handle.Err), Run stops the same way and returns that error. A Controller
// runs once: a second Run returns an error.
func (c *Controller) Run(ctx context.Context) error {
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.release()
	c.opts.Metrics.started(c.name, c.opts.Concurrency)

	feedCtx, stopFeed := context.WithCancel(context.WithoutCancel(ctx))
	var feeders sync.WaitGroup
	failed := make(chan error, len(c.inputs))
	feeders.Go(func() { c.feed(feedCtx) })
	for _, in := range c.inputs {
		feeders.Go(func() { watchHandle(feedCtx, in.handle, failed) })
	}

	workCtx, cancelWork := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelWork()
	var workers sync.WaitGroup
	for range c.opts.Concurrency {
		workers.Go(func() {
			// No reconcile reads an input that is still listing: one would
			// take a ConfigMap that is not stored yet for one that does not
			// exist.
			select {
			case <-c.ready:
				c.work(workCtx)
			case <-feedCtx.Done():
			}
		})
	}

	var err error
	select {
	case <-ctx.Done():
	case err = <-failed:
	}
	c.sched.shutdownNow()
	stopFeed()
	feeders.Wait()
	waitOrForce(&workers, c.opts.ForceStop, cancelWork)
	return err
}

func (c *Controller) acquire() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.started {
		return fmt.Errorf("controller %s: Run called twice", c.name)
	}
	c.started = true
	for _, in := range c.inputs {
		in.handle = c.set.Acquire(in.resource, in.scope)
	}
	c.running = true
	return nil
}

func (c *Controller) release() {
	c.mu.Lock()
	c.running = false
	c.mu.Unlock()
	for _, in := range c.inputs {
		in.handle.Release()
	}
}

// watchHandle reports the error of h's reflector if it stops for good
// before ctx ends.
func watchHandle(ctx context.Context, h *reflector.Handle, failed chan<- error) {
	select {
	case <-h.Done():
		if err := h.Err(); err != nil {
			failed <- err
		}
	case <-ctx.Done():
	}
}

// waitOrForce waits for wg; force closing first calls cancel (the
// reconciles' ctx) and waits on.
func waitOrForce(wg *sync.WaitGroup, force <-chan struct{}, cancel context.CancelFunc) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return
	case <-force:
		cancel()
	}
	<-done
}

// feed turns the inputs' changes into requests until ctx ends. One
// goroutine reads every subscription: they share one wake channel.
func (c *Controller) feed(ctx context.Context) {
	wake := make(chan struct{}, 1)
	subs := make([]*store.Subscription[*object.Object], len(c.inputs))
	for i, in := range c.inputs {
		subs[i] = in.handle.Subscribe(ctx, store.SubscribeOptions{Mode: store.Coalescing, Wake: wake})
	}
	states := make([]inputState, len(c.inputs))
	for i := range states {
		states[i].listing = true
	}
	unsynced := len(c.inputs)
	for {
		for i, sub := range subs {
			if c.drain(c.inputs[i], sub, &states[i]) {
				unsynced--
			}
		}
		if unsynced == 0 {
			c.readyOnce.Do(func() { close(c.ready) })
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return
		}
	}
}

// inputState is what feed knows of one input's subscription.
type inputState struct {
	listing bool // between the start or a Resync and its Synced: backlog
	synced  bool // the first Synced came
}

// drain queues the requests of every change sub has; it reports whether
// it met in's first Synced.
func (c *Controller) drain(in *Input, sub *store.Subscription[*object.Object], st *inputState) (firstSync bool) {
	for {
		ch, ok, err := sub.TryNext()
		if !ok || err != nil {
			return firstSync
		}
		switch ch.Type {
		case store.Resync:
			st.listing = true
		case store.Synced:
			firstSync = firstSync || !st.synced
			st.listing, st.synced = false, true
		case store.Applied, store.Deleted:
			c.enqueue(in, ch.Key, ch.Object, st.listing)
		}
	}
}

// enqueue maps a changed object of in to its requests and schedules them.
func (c *Controller) enqueue(in *Input, key store.Key, obj *object.Object, listing bool) {
	p := live
	if listing {
		p = backlog
	}
	t := Trigger{Kind: TriggerChange, Resource: in.resource.String(), Key: key}
	for _, req := range in.requests(c.root.resource, obj) {
		if c.wants(req) {
			c.sched.add(req, t, p, c.opts.Debounce)
		}
	}
}

// wants says whether req is this controller's to reconcile (see
// Options.Namespace).
func (c *Controller) wants(req Request) bool {
	return c.opts.Namespace == "" || req.Namespace == "" || req.Namespace == c.opts.Namespace
}

// Ready is closed once every input has synced and the initial backlog is
// queued (readyz).
func (c *Controller) Ready() <-chan struct{} { return c.ready }

// IsReady says whether Ready is closed.
func (c *Controller) IsReady() bool {
	select {
	case <-c.ready:
		return true
	default:
		return false
	}
}

// ReconcileAll queues every root object (SIGHUP, --reconcile-all), behind
// live changes. It does nothing before Run or after it returned.
func (c *Controller) ReconcileAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.running {
		return
	}
	for _, obj := range c.root.List() {
		if req := store.KeyOf(obj); c.wants(req) {
			c.sched.add(req, Trigger{Kind: TriggerAll}, backlog, 0)
		}
	}
}
