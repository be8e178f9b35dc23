package serve

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// Source is what the handler reads one resource from: a reflector.Handle
// (which implements it) of all namespaces, or of one (Resource.Namespace),
// whose store keeps a window (reflector.SetOptions.Window) so that
// watches can resume.
type Source interface {
	Resource() kube.Resource
	Columns() []object.Column
	Synced() <-chan struct{}
	Get(store.Key) (*object.Object, bool)
	// Snapshot is every object, in the API server's order
	// (store.CompareKeys), and the resourceVersion they are current to.
	Snapshot() ([]*object.Object, string)
	ResourceVersion() string
	Subscribe(ctx context.Context, opts store.SubscribeOptions) *store.Subscription[*object.Object]
	SubscribeFrom(ctx context.Context, rv string, opts store.SubscribeOptions) (*store.Subscription[*object.Object], error)
	// StateAt is every object as it was at resourceVersion rv, in the
	// API server's order, from the store's window (store.Store.StateAt).
	StateAt(rv string) ([]*object.Object, error)
	// OldestResourceVersion is the oldest resourceVersion SubscribeFrom and
	// StateAt answer, "" when none.
	OldestResourceVersion() string
	// Backfill makes them answer back to rv, when the API server still
	// holds the changes after it (reflector.Reflector.Backfill): nil, the
	// server's error (its 410 when it holds them no more), or
	// store.ErrTooOld.
	Backfill(ctx context.Context, rv string) error
}

// History is a record of resources' changes kept beyond the stores' own
// windows (pkg/history, through the daemon). Its errors wrap
// store.ErrTooOld where it does not hold what is asked: the client is
// answered 410, as the API server answers it, and relists.
type History interface {
	// StateAt is every object of res (of namespace, if not "") as it was
	// at resourceVersion rv, in the API server's order, with its printer
	// cells.
	StateAt(ctx context.Context, res kube.Resource, namespace, rv string) ([]*object.Object, error)
	// Changes are res's changes after resourceVersion from up to to, in
	// resourceVersion order, as a store's subscription delivers them:
	// Applied (its Old where known, OldUnknown where not) and Deleted
	// (the object's last state), each at its own resourceVersion. With
	// needOld, every Applied change says what came before it (HasOld, or
	// the object did not exist).
	Changes(ctx context.Context, res kube.Resource, from, to string, needOld bool) ([]store.Change[*object.Object], error)
}

// Resource is one resource the handler serves.
type Resource struct {
	Source Source
	// Discovery is the resource as the API server's discovery describes it
	// (name, singular name, kind, short names, categories, namespaced); the
	// handler serves it with the verbs get, list and watch, in the group
	// and version of the Source's resource (Discovery's are not read).
	Discovery metav1.APIResource
	// SelectableFields are the field labels a custom resource's definition
	// makes selectable (its selectableFields' JSON paths, such as
	// spec.color), beyond metadata.name and metadata.namespace.
	SelectableFields []string
	// DateColumns are a custom resource's printer columns of type date, by
	// name: their JSONPaths, from its definition. Their cells, times since
	// a timestamp, are computed again at each answer as Age is.
	DateColumns map[string]string
	// Namespace, if not "", is the one namespace the Source holds: it
	// answers the requests of that namespace (a request of every namespace
	// is another resource's, added on demand as any other).
	Namespace string
}

// Options configure a Handler.
type Options struct {
	Resources []Resource
	// Version is the API server's answer to /version, served as it is; nil
	// answers 404.
	Version []byte
	// OpenAPI, if set, answers /openapi/...; nil answers 404.
	OpenAPI http.Handler
	// Upstream, if set, answers the self reviews, passed to the API server
	// (see Upstream); nil refuses them as writes (405).
	Upstream http.Handler
	// BookmarkInterval is how often a watch that allows bookmarks is sent
	// one; zero is a minute, as the API server does.
	BookmarkInterval time.Duration
	// ContinueTTL is how long a paged list's snapshot is kept after its last
	// use; zero is five minutes (the API server's compaction interval).
	ContinueTTL time.Duration
	// FreshWait is how long a request for a resourceVersion the cache has
	// not reached yet waits for it before it is answered 504 (the cause
	// ResourceVersionTooLarge); zero is three seconds, as the API server's
	// watch cache waits.
	FreshWait time.Duration
	// Now is the clock of ages and expiries; nil is time.Now.
	Now func() time.Time
	// OnDemand, if set, adds the resources clients ask for beyond
	// Resources while serving (see OnDemand); nil answers them 404.
	OnDemand *OnDemand
	// History, if set, answers what neither a store's window nor the API
	// server can (serve --record: the daemon's history on disk): an exact
	// LIST at an older resourceVersion, a WATCH from one.
	History History
	// Warnings, if set, are the API server's warnings about each resource
	// (a deprecated version), which answers about it carry too.
	Warnings *Warnings
}

// Handler serves the Kubernetes API's read requests from its Resources,
// and those it adds on demand. It is safe for concurrent use. Close stops
// what it added.
type Handler struct {
	opts      Options
	discovery atomic.Pointer[discovery]
	onDemand  *onDemand // nil without Options.OnDemand
	// lag is the delivery lag histogram of every resource served (see
	// deliveryLag); a resource dropped takes its series with it.
	lag *prometheus.HistogramVec

	mu        sync.RWMutex
	resources map[scope]*cached
}

// scope is what one cached source holds: a resource in one namespace, or
// in every namespace ("").
type scope struct {
	gvr       schema.GroupVersionResource
	namespace string
}

// cached is one served resource and its paged lists' snapshots.
type cached struct {
	Resource
	res       kube.Resource
	snapshots *snapshots
	counters  counters
	lag       deliveryLag
	// gone is closed when a resource added on demand is dropped (its
	// reflector stopped): its watches end, so that their clients ask again.
	// nil (never closed) for Options.Resources.
	gone chan struct{}
	uses uses // the requests it answers, for OnDemand.ReleaseIdle
	// kept: not released when idle (Handler.Keep).
	kept atomic.Bool
}

func (h *Handler) newCached(r Resource, gone chan struct{}) *cached {
	c := &cached{Resource: r, res: r.Source.Resource(), snapshots: newSnapshots(h.opts.ContinueTTL, h.opts.Now), gone: gone}
	c.lag.hist = h.lag.WithLabelValues(c.name())
	c.uses.last.Store(h.opts.Now().UnixNano())
	return c
}

// name is c's resource as "resource.group", with " -n NAMESPACE" when its
// source holds one namespace: in metrics' labels and /debug/status.
func (c *cached) name() string {
	if c.Namespace == "" {
		return c.res.String()
	}
	return c.res.String() + " -n " + c.Namespace
}

// New returns a Handler for opts.Resources.
func New(opts Options) *Handler {
	if opts.BookmarkInterval <= 0 {
		opts.BookmarkInterval = time.Minute
	}
	if opts.ContinueTTL <= 0 {
		opts.ContinueTTL = 5 * time.Minute
	}
	if opts.FreshWait <= 0 {
		opts.FreshWait = 3 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	h := &Handler{opts: opts, resources: map[scope]*cached{}, lag: newLagHistogram()}
	for _, r := range opts.Resources {
		h.resources[scope{r.Source.Resource().GVR, r.Namespace}] = h.newCached(r, nil)
	}
	var known []metav1.APIResource
	if opts.OnDemand != nil {
		h.onDemand = newOnDemand(*opts.OnDemand, opts.Now)
		known = opts.OnDemand.Discovered
	}
	h.discovery.Store(newDiscovery(opts.Resources, known))
	return h
}

// lookup returns the served resource that answers a request of gvr in
// namespace ("": every namespace): its cache of every namespace, else
// that of namespace alone; nil if there is none.
func (h *Handler) lookup(gvr schema.GroupVersionResource, namespace string) *cached {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.lookupLocked(gvr, namespace)
}

// lookupLocked is lookup with h.mu held.
func (h *Handler) lookupLocked(gvr schema.GroupVersionResource, namespace string) *cached {
	if c := h.resources[scope{gvr: gvr}]; c != nil || namespace == "" {
		return c
	}
	return h.resources[scope{gvr, namespace}]
}

// served returns every served resource.
func (h *Handler) served() []*cached {
	h.mu.RLock()
	defer h.mu.RUnlock()
	out := make([]*cached, 0, len(h.resources))
	for _, c := range h.resources {
		out = append(out, c)
	}
	return out
}

// Ready says whether every resource of Options.Resources has its first
// list (those added on demand are served only once they have).
func (h *Handler) Ready() bool {
	for _, c := range h.served() {
		select {
		case <-c.Source.Synced():
		default:
			return false
		}
	}
	return true
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimSuffix(r.URL.Path, "/")
	switch path {
	case "/healthz", "/livez":
		writeText(w, http.StatusOK, "ok")
		return
	case "/readyz":
		if h.Ready() {
			writeText(w, http.StatusOK, "ok")
		} else {
			writeText(w, http.StatusServiceUnavailable, "not every resource has synced yet")
		}
		return
	}
	if h.opts.Upstream != nil && passed(r, path) {
		h.opts.Upstream.ServeHTTP(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeStatus(w, r, methodNotAllowed(r))
		return
	}
	switch {
	case path == "/version":
		h.serveVersion(w)
	case path == "/debug/status":
		h.serveStatus(w)
	case path == "/openapi" || strings.HasPrefix(path, "/openapi/"):
		if h.opts.OpenAPI == nil {
			writeStatus(w, r, notFoundPath())
			return
		}
		h.opts.OpenAPI.ServeHTTP(w, r)
	case h.serveDiscovery(w, r, path):
	default:
		h.serveResource(w, r, path)
	}
}

func (h *Handler) serveVersion(w http.ResponseWriter) {
	if h.opts.Version == nil {
		http.NotFound(w, nil)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(h.opts.Version)
}

func writeText(w http.ResponseWriter, code int, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(text))
}
