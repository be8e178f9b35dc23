package recording

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/serve"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// All is serve --record with no KIND (Config.AllKinds): the
// daemon records every kind the API server lists and watches that the
// user may (recordable says which; the kinds given are recorded as
// such), and those the server serves later: a CustomResourceDefinition
// established, an aggregated API. Each kind is a reflector of every
// namespace on the daemon's Set, the one a client's request of it is
// answered from, which the handler keeps served (serve.Handler.Keep),
// with a recorder subscribed before the reflector may start from the
// history (Recording.gate).
//
// Discovery is read again every rediscoverAll, and at once when a
// CustomResourceDefinition changes (the user may watch them: they are
// recorded, and their store wakes it). A kind the API server refuses (403:
// RBAC) is said once, in one line with the others refused at the same
// time, and asked again after retryRefused. A kind that stops for good
// later (its CRD deleted, the right revoked) is said, no longer recorded,
// and recorded again once discovery lists it and the server allows it.
type All struct {
	o     AllOptions
	rec   *Recording
	given map[schema.GroupResource]bool // recorded as AllOptions.Given
	wake  chan struct{}                 // a CustomResourceDefinition changed
	wg    sync.WaitGroup                // run, and the kinds' follow

	mu      sync.Mutex
	kinds   map[schema.GroupResource]*recordedKind // recording, or starting to
	refused map[schema.GroupResource]time.Time     // when the API server refused it last
	said    map[schema.GroupResource]bool          // refusals said already
	handler *serve.Handler                         // once serving
	crds    *reflector.Handle                      // the CustomResourceDefinitions', once recorded
	crdSub  *store.Subscription[*object.Object]    // crds' changes, which wake run
	began   bool                                   // start-up is over: a new kind is said

	starting []*recordedKind // the kinds start-up started, which it settles
}

// recordedKind is one kind All records.
type recordedKind struct {
	ar     metav1.APIResource
	res    kube.Resource
	handle *reflector.Handle
	stop   func() // stops its recorder
	// written is closed once its first state is in the history.
	written <-chan struct{}
	// settled is closed once the kind synced, or stopped before (err);
	// late says that the round that started it did not wait for it.
	settled   chan struct{}
	err       error
	late      bool
	recording bool // synced: recorded and served
}

// Timings of All.
const (
	// rediscoverAll is how often discovery is read again: a kind an
	// aggregated API adds, or a CRD the user may not watch, is recorded
	// within it.
	rediscoverAll = 30 * time.Second
	// retryRefused is how long a kind the API server refused is left
	// alone: a right granted later is found within it, at one 403 per
	// kind refused.
	retryRefused = 10 * time.Minute
	// settleWait bounds how long a round waits for its kinds' first
	// lists before it says what was refused (those later are said alone).
	settleWait = 30 * time.Second
	// establishing bounds the rounds after a CRD change while discovery
	// does not list an established CRD's resource yet (the API server
	// adds it a moment after), a second apart.
	establishing = 10
)

// crdResource is the resource of CustomResourceDefinitions.
var crdResource = schema.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}

// AllOptions is what All needs of the daemon it records every kind of.
type AllOptions struct {
	// Set is the daemon's: each kind is a reflector of every namespace on
	// it, in Scope (the daemon's scope of what it serves).
	Set   *reflector.Set
	Scope func(kube.Scope) kube.Scope
	// Given are the kinds the daemon was given (recorded as such: Add).
	Given []kube.Resource
	// Known is the API server's discovery at start-up; Discover reads it
	// again.
	Known    []metav1.APIResource
	Discover func(ctx context.Context) ([]metav1.APIResource, error)
	// Publish says what is recorded now (the kinds given first) and what
	// the API server refuses, for the daemon's Info.
	Publish func(recorded, refused []string, all bool)
}

// All starts recording every kind of o.Known the user may list and
// watch, beside those given; nil unless r records every kind
// (Config.AllKinds). Serve then waits for them, Run follows discovery,
// and Stop ends it.
func (r *Recording) All(ctx context.Context, o AllOptions) *All {
	if r == nil || r.failed || !r.cfg.AllKinds {
		return nil
	}
	a := &All{o: o, rec: r, given: map[schema.GroupResource]bool{}, wake: make(chan struct{}, 1),
		kinds: map[schema.GroupResource]*recordedKind{}, refused: map[schema.GroupResource]time.Time{}, said: map[schema.GroupResource]bool{}}
	for _, res := range o.Given {
		a.given[res.GVR.GroupResource()] = true
	}
	a.starting = a.start(ctx, o.Known)
	return a
}

// start starts recording the kinds of known not recorded yet (nor
// refused lately), and returns them.
func (a *All) start(ctx context.Context, known []metav1.APIResource) []*recordedKind {
	var started []*recordedKind
	now := time.Now()
	for _, ar := range recordable(known, a.given) {
		gr := schema.GroupResource{Group: ar.Group, Resource: ar.Name}
		a.mu.Lock()
		busy := a.kinds[gr] != nil || now.Sub(a.refused[gr]) < retryRefused
		a.mu.Unlock()
		if busy {
			continue
		}
		started = append(started, a.startKind(ctx, gr, ar))
	}
	return started
}

// startKind starts the reflector of ar and its recorder, subscribed before
// the reflector may read the history.
func (a *All) startKind(ctx context.Context, gr schema.GroupResource, ar metav1.APIResource) *recordedKind {
	k := &recordedKind{ar: ar, res: kube.Resource{GVR: gr.WithVersion(ar.Version), Kind: ar.Kind, Namespaced: ar.Namespaced}, settled: make(chan struct{})}
	open := a.rec.gate(gr)
	k.handle = a.o.Set.Acquire(k.res, a.o.Scope(kube.Scope{}))
	k.stop, k.written = a.rec.Add(ctx, k.handle)
	open()
	a.mu.Lock()
	a.kinds[gr] = k
	a.mu.Unlock()
	a.wg.Go(func() { a.follow(ctx, k) })
	return k
}

// follow waits for k's first list, then for its reflector to stop for
// good, until ctx ends.
func (a *All) follow(ctx context.Context, k *recordedKind) {
	select {
	case <-k.handle.Synced():
		a.synced(ctx, k)
	case <-k.handle.Done():
		a.stopped(k, stoppedBefore(k.handle))
		return
	case <-ctx.Done():
		return
	}
	select {
	case <-k.handle.Done():
		a.stopped(k, k.handle.Err())
	case <-ctx.Done():
	}
}

// stoppedBefore is why a handle stopped before its first list.
func stoppedBefore(h *reflector.Handle) error {
	if err := h.Err(); err != nil {
		return err
	}
	return errors.New("stopped before its first list")
}

// synced serves k (kept) once the handler serves, and watches the
// CustomResourceDefinitions when k is theirs.
func (a *All) synced(ctx context.Context, k *recordedKind) {
	a.mu.Lock()
	k.recording = true
	close(k.settled)
	h, late := a.handler, k.late
	if k.res.GVR.GroupResource() == crdResource {
		a.crds = k.handle
		a.crdSub = k.handle.Subscribe(ctx, store.SubscribeOptions{Wake: a.wake}) // ends with ctx
	}
	a.mu.Unlock()
	if h != nil {
		h.Keep(k.ar)
	}
	if late {
		a.rec.say("Recording %s too\n", k.res)
	}
	a.publish()
}

// stopped drops k, whose reflector stopped for good (err): before its
// first list (403: refused), or after (its CRD deleted, the right
// revoked).
func (a *All) stopped(k *recordedKind, err error) {
	k.stop()
	k.handle.Release()
	gr := k.res.GVR.GroupResource()
	a.mu.Lock()
	delete(a.kinds, gr)
	if a.crds == k.handle {
		a.crdSub.Close()
		a.crds, a.crdSub = nil, nil
	}
	forbidden := apierrors.IsForbidden(err)
	if forbidden {
		a.refused[gr] = time.Now()
	}
	was, late := k.recording, k.late
	say := !forbidden || !a.said[gr]
	if !was {
		k.err = err
		close(k.settled)
		if late && forbidden {
			a.said[gr] = true
		}
	}
	a.mu.Unlock()
	switch {
	case was && apierrors.IsNotFound(err): // its CRD deleted, its aggregated API gone
		a.rec.say("warning: no longer recording %s: the API server no longer serves it\n", k.res)
	case was:
		a.rec.say("warning: no longer recording %s: %v\n", k.res, err)
	case late && say:
		a.sayRefused([]string{k.res.String()}, []error{err})
	}
	a.publish()
}

// Run reads discovery again every rediscoverAll and when a
// CustomResourceDefinition changes, and records the kinds it finds new,
// until ctx ends (on a goroutine of its own: stop waits for it).
func (a *All) Run(ctx context.Context) {
	if a == nil {
		return
	}
	a.wg.Go(func() {
		t := time.NewTicker(rediscoverAll)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			case <-a.wake:
				a.drainCRDs()
			}
			a.rediscover(ctx)
		}
	})
}

// drainCRDs takes what the CustomResourceDefinitions' subscription holds:
// what changed is read from discovery.
func (a *All) drainCRDs() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.crdSub == nil {
		return
	}
	for {
		if _, ok, err := a.crdSub.TryNext(); !ok || err != nil {
			return
		}
	}
}

// rediscover reads discovery and records what it finds new; while an
// established CRD's resource is not listed yet, it reads it again a
// second later (establishing times at most).
func (a *All) rediscover(ctx context.Context) {
	for range establishing {
		known, err := a.o.Discover(ctx)
		if err != nil {
			return // the next tick tries again
		}
		a.settle(ctx, a.start(ctx, known))
		if !a.establishing(known) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

// establishing says whether a CRD the store holds is established but its
// resource not in known.
func (a *All) establishing(known []metav1.APIResource) bool {
	a.mu.Lock()
	crds := a.crds
	a.mu.Unlock()
	if crds == nil {
		return false
	}
	for _, o := range crds.List() {
		raw := o.JSON()
		if gjson.GetBytes(raw, `status.conditions.#(type=="Established").status`).Str != "True" {
			continue
		}
		group, plural := gjson.GetBytes(raw, "spec.group").Str, gjson.GetBytes(raw, "spec.names.plural").Str
		if !slices.ContainsFunc(known, func(ar metav1.APIResource) bool { return ar.Group == group && ar.Name == plural }) {
			return true
		}
	}
	return false
}

// Stop waits for Run and the kinds' goroutines, once the daemon's context
// ended, and releases the kinds' reflectors once their recorders wrote
// what they hold.
func (a *All) Stop() {
	if a == nil {
		return
	}
	a.wg.Wait()
	a.mu.Lock()
	kinds := make([]*recordedKind, 0, len(a.kinds))
	for _, k := range a.kinds {
		kinds = append(kinds, k)
	}
	a.mu.Unlock()
	for _, k := range kinds {
		k.stop()
		k.handle.Release()
	}
}

// recorded names the kinds recorded now (those given first) and those
// the API server refuses, for the daemon's Info.
func (a *All) recorded() (names, refused []string) {
	for _, r := range a.o.Given {
		names = append(names, r.String())
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	var more []string
	for _, k := range a.kinds {
		if k.recording {
			more = append(more, k.res.String())
		}
	}
	for gr, said := range a.said {
		if said && a.kinds[gr] == nil {
			refused = append(refused, gr.String())
		}
	}
	slices.Sort(more)
	slices.Sort(refused)
	return append(names, more...), refused
}

// publish writes the daemon's Info again with what it records.
func (a *All) publish() {
	names, refused := a.recorded()
	a.o.Publish(names, refused, true)
}
