package serve

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
)

// OnDemand adds, while a Handler serves, the resources that clients ask
// for: the first request of a resource of Discovered starts caching it
// (Start), waits for its first list and is answered from it, as are the
// requests after it; concurrent first requests wait for the same start.
type OnDemand struct {
	// Discovered are the API server's resources that can be listed and
	// watched, each with its Group and Version set, in the order of the
	// server's discovery (its groups in order, each group's preferred
	// version first). The handler's discovery lists them all, with the
	// verbs get, list and watch.
	Discovered []metav1.APIResource
	// Rediscover, if set, reads them again from the API server: when a
	// client asks for a resource they lack (at most once a second), and
	// when a client reads /api or /apis over DiscoveryTTL after the last
	// read. An error keeps what was read before.
	Rediscover func(ctx context.Context) ([]metav1.APIResource, error)
	// Start starts caching res in every namespace, or in namespace alone
	// when it is not "" (for a user whom the API server refuses every
	// namespace: see Handler.resource); required. The handler owns the
	// source it returns, and releases it when the source stops for good
	// (Owned.Err: the API server's answer to its LIST, such as 403
	// Forbidden, is then the answer to the requests that wait for it) or
	// when the handler is closed. ctx ends when the handler is closed.
	Start func(ctx context.Context, res kube.Resource, namespace string) (Started, error)
	// Changed, if set, is called with every resource served in every
	// namespace each time the handler adds or drops one; calls do not
	// overlap.
	Changed func([]kube.Resource)
	// SyncWait bounds how long a request waits for a new resource's first
	// list before it is answered 504 (the cache keeps listing for the next
	// request); zero is 30 seconds. A request whose context ends stops
	// waiting at once.
	SyncWait time.Duration
	// DiscoveryTTL is how old the discovery that /api and /apis answer
	// from may get; zero is 30 seconds.
	DiscoveryTTL time.Duration
	// ReleaseIdle, if not zero, drops a resource added on demand that no
	// request has used for that long and that no watch is open on: its
	// source is released and Changed told, as when it stops; the next
	// request adds it again (see idle.go). Zero keeps every one as long
	// as the handler.
	ReleaseIdle time.Duration
}

// Started is a resource that OnDemand.Start began to cache.
type Started struct {
	Source Owned
	// SelectableFields and DateColumns are as Resource's.
	SelectableFields []string
	DateColumns      map[string]string
}

// Owned is a Source that the handler owns: a reflector.Handle.
type Owned interface {
	Source
	// Done is closed when the source stopped: for good (Err says why),
	// or released.
	Done() <-chan struct{}
	// Err is, once Done is closed, why the source stopped for good; nil
	// when it was released.
	Err() error
	// Release ends the handler's hold of the source; it is idempotent.
	Release()
}

// rediscoverEvery bounds how often a request of an unknown resource makes
// the handler read the API server's discovery again.
const rediscoverEvery = time.Second

// onDemand is a Handler's state of OnDemand.
type onDemand struct {
	OnDemand
	now    func() time.Time
	ctx    context.Context // of the started sources; ends with Close
	cancel context.CancelFunc
	wg     sync.WaitGroup // the goroutines that follow the started sources

	reading sync.Mutex // held while Rediscover reads: concurrent requests wait for one read
	mu      sync.Mutex // guards known, readAt, pending, refused
	known   []metav1.APIResource
	readAt  time.Time
	pending map[scope]*pending
	refused map[schema.GroupVersionResource]time.Time // see refusedFor

	changing sync.Mutex // serialises Changed
}

// pending is a resource being started: done is closed once it is served
// (c) or failed (err).
type pending struct {
	done chan struct{}
	c    *cached
	err  error
	keep bool // Keep asked for it: served, it is kept (cached.kept)
}

func newOnDemand(o OnDemand, now func() time.Time) *onDemand {
	if o.SyncWait <= 0 {
		o.SyncWait = 30 * time.Second
	}
	if o.DiscoveryTTL <= 0 {
		o.DiscoveryTTL = 30 * time.Second
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &onDemand{
		OnDemand: o, now: now, ctx: ctx, cancel: cancel,
		known: o.Discovered, readAt: now(), pending: map[scope]*pending{},
		refused: map[schema.GroupVersionResource]time.Time{},
	}
}

// Close stops the resources added on demand and waits for them; requests
// of resources not served yet are answered 503 after it.
func (h *Handler) Close() {
	if h.onDemand == nil {
		return
	}
	h.onDemand.cancel()
	h.onDemand.wg.Wait()
}

// resource returns the resource that answers req: a served one, or one
// added on demand now; nil, nil when the API server has none. A request of
// one namespace whose cache of every namespace the API server refuses
// (403: a user allowed some namespaces only) is answered from a cache of
// that namespace alone, added likewise; a request of every namespace then
// gets the API server's 403, as it would from the API server. The resource
// returned is in use (see uses): the caller ends the use once answered.
func (h *Handler) resource(r *http.Request, req request) (*cached, *apierrors.StatusError) {
	if c := h.acquire(req.gvr, req.namespace); c != nil || h.onDemand == nil {
		return c, nil
	}
	ar, ok := h.known(r.Context(), req.gvr)
	if !ok {
		return nil, nil
	}
	c, serr := h.awaitScope(r, req, ar)
	if c != nil {
		// Just served: its idle time counts from then, a moment ago, so
		// it is not dropped before this use begins (and were it, the
		// request would be answered from its last state).
		c.uses.begin()
	}
	return c, serr
}

// awaitScope awaits the cache that answers req: that of every namespace,
// or, when the API server refuses it (now, or within refusedFor), that of
// req's namespace.
func (h *Handler) awaitScope(r *http.Request, req request, ar metav1.APIResource) (*cached, *apierrors.StatusError) {
	one := req.namespace != "" && ar.Namespaced
	if one && h.onDemand.refusedLately(req.gvr) {
		return h.await(r, scope{req.gvr, req.namespace}, ar)
	}
	c, serr := h.await(r, scope{gvr: req.gvr}, ar)
	if serr == nil || !ar.Namespaced || !apierrors.IsForbidden(serr) {
		return c, serr
	}
	h.onDemand.refuse(req.gvr)
	if !one {
		return nil, serr
	}
	return h.await(r, scope{req.gvr, req.namespace}, ar)
}

// await starts caching s unless a request did, and waits for its first
// list, for OnDemand.SyncWait at most.
func (h *Handler) await(r *http.Request, s scope, ar metav1.APIResource) (*cached, *apierrors.StatusError) {
	p, serr := h.start(s, ar, false)
	if serr != nil {
		return nil, serr
	}
	timer := time.NewTimer(h.onDemand.SyncWait)
	defer timer.Stop()
	select {
	case <-p.done:
		if p.err != nil {
			return nil, startError(s.gvr, p.err)
		}
		return p.c, nil
	case <-timer.C:
		return nil, apierrors.NewTimeoutError(fmt.Sprintf("%s is still being listed into the cache (kubectl reflect serve): try again", s.gvr.GroupResource()), 1)
	case <-r.Context().Done():
		return nil, apierrors.NewTimeoutError("the request ended while waiting for the cache", 0)
	}
}

// known returns the API server's resource gvr, reading its discovery
// again when gvr is not in the copy (at most once in rediscoverEvery).
func (h *Handler) known(ctx context.Context, gvr schema.GroupVersionResource) (metav1.APIResource, bool) {
	find := func() (metav1.APIResource, bool) {
		d := h.onDemand
		d.mu.Lock()
		defer d.mu.Unlock()
		return Discovered(d.known, gvr)
	}
	if ar, ok := find(); ok {
		return ar, true
	}
	h.rediscover(ctx, rediscoverEvery)
	return find()
}

// rediscover reads the API server's discovery again if the copy is older
// than maxAge, and rebuilds the documents from it.
func (h *Handler) rediscover(ctx context.Context, maxAge time.Duration) {
	d := h.onDemand
	if d.Rediscover == nil {
		return
	}
	d.reading.Lock()
	defer d.reading.Unlock()
	d.mu.Lock()
	fresh := d.now().Sub(d.readAt) < maxAge
	d.mu.Unlock()
	if fresh {
		return
	}
	known, err := d.Rediscover(ctx)
	if err != nil {
		return // the copy serves on; the next request tries again
	}
	d.mu.Lock()
	d.known, d.readAt = known, d.now()
	d.mu.Unlock()
	h.discovery.Store(newDiscovery(h.opts.Resources, known))
}

// serveDiscovery answers path if it is a discovery path, and reports
// whether it was; /api and /apis from a copy of the API server's
// discovery no older than OnDemand.DiscoveryTTL.
func (h *Handler) serveDiscovery(w http.ResponseWriter, r *http.Request, path string) bool {
	if h.onDemand != nil && (path == "/api" || path == "/apis") {
		h.rediscover(r.Context(), h.onDemand.DiscoveryTTL)
	}
	return h.discovery.Load().serve(w, r, path)
}
