package serve

import (
	"net/http"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// request is what a resource path names.
type request struct {
	gvr             schema.GroupVersionResource
	namespace, name string
	subresource     string
	watchPath       bool // the legacy /watch/ form
}

// parseResourcePath reads /api/v1/[watch/][namespaces/NS/]RESOURCE[/NAME[/SUB]]
// and /apis/GROUP/VERSION/... the same way.
func parseResourcePath(path string) (request, bool) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	var req request
	switch {
	case len(segs) >= 3 && segs[0] == "api":
		req.gvr.Version, segs = segs[1], segs[2:]
	case len(segs) >= 4 && segs[0] == "apis":
		req.gvr.Group, req.gvr.Version, segs = segs[1], segs[2], segs[3:]
	default:
		return request{}, false
	}
	if segs[0] == "watch" && len(segs) > 1 {
		req.watchPath, segs = true, segs[1:]
	}
	if segs[0] == "namespaces" && len(segs) >= 3 {
		req.namespace, segs = segs[1], segs[2:]
	}
	req.gvr.Resource = segs[0]
	if len(segs) > 1 {
		req.name = segs[1]
	}
	if len(segs) > 2 {
		req.subresource = strings.Join(segs[2:], "/")
	}
	for _, s := range segs {
		if s == "" {
			return request{}, false
		}
	}
	return req, true
}

// serveResource answers a GET, LIST or WATCH of a resource path.
func (h *Handler) serveResource(w http.ResponseWriter, r *http.Request, path string) {
	req, ok := parseResourcePath(path)
	if !ok {
		writeStatus(w, r, notFoundPath())
		return
	}
	c, serr := h.resource(r, req)
	if c != nil {
		defer func() { c.uses.end(h.opts.Now()) }()
	}
	switch {
	case serr != nil:
		writeStatus(w, r, serr)
		return
	case c == nil:
		writeStatus(w, r, notCached(req.gvr.GroupResource().String()+" ("+req.gvr.GroupVersion().String()+")"))
		return
	case req.subresource != "":
		writeStatus(w, r, notCached(req.gvr.GroupResource().String()+"/"+req.subresource))
		return
	case req.namespace != "" && !c.res.Namespaced:
		writeStatus(w, r, notFoundPath())
		return
	}
	h.opts.Warnings.addTo(w.Header(), req.gvr)
	q := r.URL.Query()
	switch {
	case req.watchPath || isTrue(q.Get("watch")):
		h.watch(w, r, c, req)
	case req.name != "":
		h.get(w, r, c, req)
	default:
		h.list(w, r, c, req)
	}
}

// Path is what a resource path of the API names (ParsePath): its resource,
// namespace, object name, subresource, and whether it is the legacy
// /watch/ form.
type Path struct {
	GVR             schema.GroupVersionResource
	Namespace, Name string
	Subresource     string
	Watch           bool
}

// ParsePath reads a resource path as this package's handler does; false
// for any other path (discovery, /version, /openapi).
func ParsePath(path string) (Path, bool) {
	req, ok := parseResourcePath(path)
	return Path{GVR: req.gvr, Namespace: req.namespace, Name: req.name, Subresource: req.subresource, Watch: req.watchPath}, ok
}
