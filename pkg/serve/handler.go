package serve

import (
	"context"
	"net/http"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// Source is what the handler reads one resource from: a reflector.Lease of
// all namespaces (which implements it), whose store keeps a history
// (reflector.SetOptions.History) so that watches can resume.
type Source interface {
	Resource() kube.Resource
	Columns() []object.Column
	Synced() <-chan struct{}
	Get(store.Key) (*object.Object, bool)
	Snapshot() ([]*object.Object, string)
	ResourceVersion() string
	Subscribe(ctx context.Context, opts store.SubscribeOptions) *store.Subscription[*object.Object]
	SubscribeFrom(ctx context.Context, rv string, opts store.SubscribeOptions) (*store.Subscription[*object.Object], error)
}

// Resource is one resource the handler serves.
type Resource struct {
	Source Source
	// Discovery is the resource as the API server's discovery describes it
	// (name, singular name, kind, short names, categories, namespaced); the
	// handler serves it with the verbs get, list and watch.
	Discovery metav1.APIResource
	// SelectableFields are the field labels a custom resource's definition
	// makes selectable (its selectableFields' JSON paths, such as
	// spec.color), beyond metadata.name and metadata.namespace.
	SelectableFields []string
}

// Options configure a Handler.
type Options struct {
	Resources []Resource
	// Version is the API server's answer to /version, served as it is; nil
	// answers 404.
	Version []byte
	// OpenAPI, if set, answers /openapi/...; nil answers 404.
	OpenAPI http.Handler
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
}

// Handler serves the Kubernetes API's read requests from its Resources. It
// is safe for concurrent use.
type Handler struct {
	opts      Options
	resources map[schema.GroupVersionResource]*cached
	discovery *discovery
}

// cached is one served resource and its paged lists' snapshots.
type cached struct {
	Resource
	res       kube.Resource
	snapshots *snapshots
	counters  counters
	lag       deliveryLag
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
	h := &Handler{opts: opts, resources: map[schema.GroupVersionResource]*cached{}}
	for _, r := range opts.Resources {
		res := r.Source.Resource()
		h.resources[res.GVR] = &cached{Resource: r, res: res, snapshots: newSnapshots(opts.ContinueTTL, opts.Now)}
	}
	h.discovery = newDiscovery(opts.Resources)
	return h
}

// Ready says whether every resource has its first list.
func (h *Handler) Ready() bool {
	for _, c := range h.resources {
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
	case h.discovery.serve(w, r, path):
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
