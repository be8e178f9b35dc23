package serve

import (
	"net/http"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Warnings keeps the warnings the API server sent with its latest answer
// about each resource version, as its Warning headers ("299 - \"v1
// Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1
// EndpointSlice\""), so that the daemon's answers about it carry them as the
// server's would, and kubectl prints them. The zero value is ready; it is
// safe for concurrent use.
type Warnings struct {
	mu    sync.Mutex
	byGVR map[schema.GroupVersionResource][]string
}

// Wrap is a rest.Config's WrapTransport: it records the warnings of the
// successful answers to GETs (lists, watches) of resource paths that pass
// through rt.
func (w *Warnings) Wrap(rt http.RoundTripper) http.RoundTripper {
	return &warningsRecorder{next: rt, warnings: w}
}

type warningsRecorder struct {
	next     http.RoundTripper
	warnings *Warnings
}

func (r *warningsRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	if err != nil || req.Method != http.MethodGet || resp.StatusCode/100 != 2 {
		return resp, err
	}
	if p, ok := parseResourcePath(req.URL.Path); ok && p.subresource == "" {
		r.warnings.set(p.gvr, resp.Header.Values("Warning"))
	}
	return resp, err
}

func (w *Warnings) set(gvr schema.GroupVersionResource, headers []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(headers) == 0 {
		delete(w.byGVR, gvr)
		return
	}
	if w.byGVR == nil {
		w.byGVR = map[schema.GroupVersionResource][]string{}
	}
	w.byGVR[gvr] = slices.Clone(headers)
}

// addTo adds the warnings about gvr to h; w may be nil.
func (w *Warnings) addTo(h http.Header, gvr schema.GroupVersionResource) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, v := range w.byGVR[gvr] {
		h.Add("Warning", v)
	}
}
