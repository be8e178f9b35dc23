package merge

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"k8s.io/client-go/rest"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/serve"
)

// ContextAnnotation is the annotation of each object of the view that
// names its cluster (the kubeconfig context it was read through), as get
// and watch of several contexts set it.
const ContextAnnotation = "kubectl-reflect.io/context"

// Cluster is one member of the view: its name (the kubeconfig context's)
// and the API it is read from.
type Cluster struct {
	Name string
	// Server is the API's base URL (a path prefix is kept).
	Server *url.URL
	// Client sends the requests, authenticated.
	Client *http.Client
}

// ClusterFor is a cluster named name, read through cfg.
func ClusterFor(name string, cfg *rest.Config) (Cluster, error) {
	server, err := url.Parse(cfg.Host)
	if err != nil {
		return Cluster{}, fmt.Errorf("context %s: server %q: %w", name, cfg.Host, err)
	}
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return Cluster{}, fmt.Errorf("context %s: %w", name, err)
	}
	return Cluster{Name: name, Server: server, Client: client}, nil
}

// Handler answers the merged read view of its clusters (see the package
// documentation). It is safe for concurrent use.
type Handler struct {
	clusters []Cluster
}

// New is the view of clusters, in their order: one at least, each name
// once.
func New(clusters []Cluster) (*Handler, error) {
	if len(clusters) == 0 {
		return nil, errors.New("a merged view needs a cluster at least")
	}
	seen := map[string]bool{}
	for _, c := range clusters {
		if seen[c.Name] {
			return nil, fmt.Errorf("cluster %q is given twice", c.Name)
		}
		seen[c.Name] = true
	}
	return &Handler{clusters: clusters}, nil
}

// ServeHTTP answers reads of resources from every cluster, anything else
// (discovery, /version, /openapi) from the first, and refuses writes.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeStatus(w, http.StatusMethodNotAllowed, "MethodNotAllowed",
			fmt.Sprintf("%s %s is not allowed: the merged view of kubectl reflect serve is read-only", r.Method, r.URL.Path))
		return
	}
	p, ok := serve.ParsePath(r.URL.Path)
	switch {
	case !ok:
		h.forward(w, r, h.clusters[0])
	case p.Subresource != "":
		writeStatus(w, http.StatusNotFound, "NotFound", "the merged view serves no subresource ("+p.Subresource+")")
	case p.Watch || serve.IsTrue(r.URL.Query().Get("watch")):
		h.watch(w, r)
	case p.Name != "":
		h.get(w, r)
	default:
		h.list(w, r)
	}
}
