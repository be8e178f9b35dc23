package daemon

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/serve"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// recordAll is serve --record with no KIND (RecordConfig.AllKinds): the
// daemon records every kind the API server lists and watches that the
// user may (recordable says which; the kinds given are recorded as
// such), and those the server serves later: a CustomResourceDefinition
// established, an aggregated API. Each kind is a reflector of every
// namespace on the daemon's Set, the one a client's request of it is
// answered from, which the handler keeps served (serve.Handler.Keep),
// with a recorder subscribed before the reflector may start from the
// history (recording.gate).
//
// Discovery is read again every rediscoverAll, and at once when a
// CustomResourceDefinition changes (the user may watch them: they are
// recorded, and their store wakes it). A kind the API server refuses (403:
// RBAC) is said once, in one line with the others refused at the same
// time, and asked again after retryRefused. A kind that stops for good
// later (its CRD deleted, the right revoked) is said, no longer recorded,
// and recorded again once discovery lists it and the server allows it.
type recordAll struct {
	d     *daemonRun
	set   *reflector.Set
	rec   *recording
	dc    *discovery.DiscoveryClient
	given map[schema.GroupResource]bool // recorded as Config.Resources
	wake  chan struct{}                 // a CustomResourceDefinition changed
	wg    sync.WaitGroup                // run, and the kinds' follow

	mu      sync.Mutex
	kinds   map[schema.GroupResource]*recordedKind // recording, or starting to
	refused map[schema.GroupResource]time.Time     // when the API server refused it last
	said    map[schema.GroupResource]bool          // refusals said already
	handler *serve.Handler                         // once serving
	crds    *reflector.Lease                       // the CustomResourceDefinitions', once recorded
	crdSub  *store.Subscription[*object.Object]    // crds' changes, which wake run
	began   bool                                   // start-up is over: a new kind is said

	starting []*recordedKind // the kinds start-up started, which it settles
}

// recordedKind is one kind recordAll records.
type recordedKind struct {
	ar    metav1.APIResource
	res   kube.Resource
	lease *reflector.Lease
	stop  func() // stops its recorder
	// written is closed once its first state is in the history.
	written <-chan struct{}
	// settled is closed once the kind synced, or stopped before (err);
	// late says that the round that started it did not wait for it.
	settled   chan struct{}
	err       error
	late      bool
	recording bool // synced: recorded and served
}

// Timings of recordAll.
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

// newRecordAll is the recording of every kind of the daemon d, beside
// those given; nil unless it records every kind.
func (d *daemonRun) newRecordAll(set *reflector.Set, rec *recording, dc *discovery.DiscoveryClient) *recordAll {
	if rec == nil || rec.failed || d.cfg.Record == nil || !d.cfg.Record.AllKinds {
		return nil
	}
	a := &recordAll{d: d, set: set, rec: rec, dc: dc, given: map[schema.GroupResource]bool{}, wake: make(chan struct{}, 1),
		kinds: map[schema.GroupResource]*recordedKind{}, refused: map[schema.GroupResource]time.Time{}, said: map[schema.GroupResource]bool{}}
	for _, r := range d.cfg.Resources {
		a.given[r.GVR.GroupResource()] = true
	}
	return a
}

// start starts recording the kinds of known not recorded yet (nor
// refused lately), and returns them.
func (a *recordAll) start(ctx context.Context, known []metav1.APIResource) []*recordedKind {
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
func (a *recordAll) startKind(ctx context.Context, gr schema.GroupResource, ar metav1.APIResource) *recordedKind {
	k := &recordedKind{ar: ar, res: kube.Resource{GVR: gr.WithVersion(ar.Version), Kind: ar.Kind, Namespaced: ar.Namespaced}, settled: make(chan struct{})}
	open := a.rec.gate(gr)
	k.lease = a.set.Acquire(k.res, servedScope(kube.Scope{}))
	k.stop, k.written = a.rec.add(ctx, k.lease)
	open()
	a.mu.Lock()
	a.kinds[gr] = k
	a.mu.Unlock()
	a.wg.Go(func() { a.follow(ctx, k) })
	return k
}

// follow waits for k's first list, then for its reflector to stop for
// good, until ctx ends.
func (a *recordAll) follow(ctx context.Context, k *recordedKind) {
	select {
	case <-k.lease.Synced():
		a.synced(ctx, k)
	case <-k.lease.Done():
		a.stopped(k, stoppedBefore(k.lease))
		return
	case <-ctx.Done():
		return
	}
	select {
	case <-k.lease.Done():
		a.stopped(k, k.lease.Err())
	case <-ctx.Done():
	}
}

// stoppedBefore is why a lease stopped before its first list.
func stoppedBefore(l *reflector.Lease) error {
	if err := l.Err(); err != nil {
		return err
	}
	return errors.New("stopped before its first list")
}

// synced serves k (kept) once the handler serves, and watches the
// CustomResourceDefinitions when k is theirs.
func (a *recordAll) synced(ctx context.Context, k *recordedKind) {
	a.mu.Lock()
	k.recording = true
	close(k.settled)
	h, late := a.handler, k.late
	if k.res.GVR.GroupResource() == crdResource {
		a.crds = k.lease
		a.crdSub = k.lease.Subscribe(ctx, store.SubscribeOptions{Wake: a.wake}) // ends with ctx
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
func (a *recordAll) stopped(k *recordedKind, err error) {
	k.stop()
	k.lease.Release()
	gr := k.res.GVR.GroupResource()
	a.mu.Lock()
	delete(a.kinds, gr)
	if a.crds == k.lease {
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

// settle waits for the kinds started to settle and, those that synced,
// for their first state to be in the history (the daemon that says it
// serves records each change at once: not behind a burst of first states,
// one per kind), settleWait at most. Then it says which the API server
// refused (one line), which failed otherwise (a line each) and, after
// start-up, which are recorded now; those still listing are said when
// they settle.
func (a *recordAll) settle(ctx context.Context, started []*recordedKind) {
	timer := time.NewTimer(settleWait)
	defer timer.Stop()
wait:
	for _, k := range started {
		select {
		case <-k.settled:
		case <-timer.C:
			break wait
		case <-ctx.Done():
			return
		}
		if k.err != nil { // settled: read after its close
			continue
		}
		select {
		case <-k.written:
		case <-k.lease.Done():
		case <-timer.C:
			break wait
		case <-ctx.Done():
			return
		}
	}
	var (
		names, added []string
		errs         []error
	)
	a.mu.Lock()
	for _, k := range started {
		select {
		case <-k.settled:
		default:
			k.late = true
			continue
		}
		gr := k.res.GVR.GroupResource()
		switch {
		case k.err == nil:
			if a.began {
				added = append(added, k.res.String())
			}
		case apierrors.IsForbidden(k.err) && a.said[gr]:
		default:
			a.said[gr] = a.said[gr] || apierrors.IsForbidden(k.err)
			names, errs = append(names, k.res.String()), append(errs, k.err)
		}
	}
	a.began = true
	a.mu.Unlock()
	a.sayRefused(names, errs)
	if len(added) > 0 {
		a.rec.say("Recording %s too\n", strings.Join(added, ", "))
	}
	a.publish() // the refusals said
}

// sayRefused says that the kinds names are not recorded: those the API
// server refused (403) in one line, the others each with its error.
func (a *recordAll) sayRefused(names []string, errs []error) {
	var forbidden []string
	for i, name := range names {
		if apierrors.IsForbidden(errs[i]) {
			forbidden = append(forbidden, name)
			continue
		}
		a.rec.say("warning: not recording %s: %v\n", name, errs[i])
	}
	if len(forbidden) > 0 {
		a.rec.say("warning: not recording what this user may not list and watch (403): %s\n", strings.Join(forbidden, ", "))
	}
}

// serve waits for the kinds start-up started to settle (settle: what the
// API server refused is said before the daemon serves), and keeps those
// recorded served by h, and those that sync later.
func (a *recordAll) serve(ctx context.Context, h *serve.Handler) {
	if a == nil {
		return
	}
	a.settle(ctx, a.starting)
	a.starting = nil
	a.mu.Lock()
	a.handler = h
	var keep []metav1.APIResource
	for _, k := range a.kinds {
		if k.recording {
			keep = append(keep, k.ar)
		}
	}
	a.mu.Unlock()
	for _, ar := range keep {
		h.Keep(ar)
	}
}

// run reads discovery again every rediscoverAll and when a
// CustomResourceDefinition changes, and records the kinds it finds new,
// until ctx ends (on a goroutine of its own: stop waits for it).
func (a *recordAll) run(ctx context.Context) {
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
func (a *recordAll) drainCRDs() {
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
func (a *recordAll) rediscover(ctx context.Context) {
	for range establishing {
		known, err := serverResources(ctx, a.dc)
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
func (a *recordAll) establishing(known []metav1.APIResource) bool {
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

// stop waits for run and the kinds' goroutines, once the daemon's context
// ended, and releases the kinds' reflectors once their recorders wrote
// what they hold.
func (a *recordAll) stop() {
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
		k.lease.Release()
	}
}

// recorded names the kinds recorded now (those given first) and those
// the API server refuses, for the daemon's Info.
func (a *recordAll) recorded() (names, refused []string) {
	for _, r := range a.d.cfg.Resources {
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
func (a *recordAll) publish() {
	names, refused := a.recorded()
	a.d.published.recording(names, refused, true)
}
