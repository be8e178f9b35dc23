package serve

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestWarningsRecorded: the warnings of successful GETs of resource paths
// are kept per resource version, the latest answer's replacing the last.
func TestWarningsRecorded(t *testing.T) {
	endpoints := schema.GroupVersionResource{Version: "v1", Resource: "endpoints"}
	deprecated := `299 - "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"`
	var w Warnings
	answer := func(method, path string, code int, warnings ...string) {
		t.Helper()
		rt := w.Wrap(roundTripFunc(func(*http.Request) (*http.Response, error) {
			rec := httptest.NewRecorder()
			for _, v := range warnings {
				rec.Header().Add("Warning", v)
			}
			rec.WriteHeader(code)
			return rec.Result(), nil
		}))
		req := httptest.NewRequest(method, "https://server"+path, nil)
		if _, err := rt.RoundTrip(req); err != nil {
			t.Fatal(err)
		}
	}
	got := func(gvr schema.GroupVersionResource) []string {
		h := http.Header{}
		w.addTo(h, gvr)
		return h.Values("Warning")
	}
	answer("GET", "/api/v1/endpoints", 200, deprecated)
	answer("GET", "/api/v1/namespaces/a/configmaps", 200)
	answer("GET", "/apis/apps/v1/deployments", 500, `299 - "not kept: an error"`)
	answer("POST", "/apis/apps/v1/deployments", 201, `299 - "not kept: a write"`)
	answer("GET", "/api/v1/namespaces/a/pods/p/log", 200, `299 - "not kept: a subresource"`)
	if v := got(endpoints); !slices.Equal(v, []string{deprecated}) {
		t.Errorf("endpoints: %q, want the deprecation", v)
	}
	for _, r := range []schema.GroupVersionResource{{Version: "v1", Resource: "configmaps"}, {Group: "apps", Version: "v1", Resource: "deployments"}, {Version: "v1", Resource: "pods"}} {
		if v := got(r); len(v) != 0 {
			t.Errorf("%s: %q, want none", r, v)
		}
	}
	answer("GET", "/api/v1/watch/namespaces/a/endpoints", 200) // the API no longer warns
	if v := got(endpoints); len(v) != 0 {
		t.Errorf("endpoints after an answer without warnings: %q, want none", v)
	}
	var none *Warnings
	none.addTo(http.Header{}, endpoints) // a handler without Warnings
}

// TestWarningsAnswered: answers about a resource carry its warnings.
func TestWarningsAnswered(t *testing.T) {
	w := &Warnings{}
	w.set(configMaps.GVR, []string{`299 - "v1 ConfigMap is deprecated"`})
	fx := newFixtureOpts(t, 16, Options{Warnings: w}, cm(t, "a", "x", 5))
	for _, path := range []string{"/api/v1/configmaps", "/api/v1/namespaces/a/configmaps/x", "/api/v1/namespaces/a/configmaps/nope"} {
		resp := fx.response(path)
		if v := resp.Header.Values("Warning"); !slices.Equal(v, []string{`299 - "v1 ConfigMap is deprecated"`}) {
			t.Errorf("%s: warnings %q", path, v)
		}
	}
	if v := fx.response("/api/v1").Header.Values("Warning"); len(v) != 0 {
		t.Errorf("discovery: warnings %q, want none", v)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// response is the answer to a GET of path with the token, its body read.
func (fx *fixture) response(path string) *http.Response {
	fx.t.Helper()
	req, err := http.NewRequest(http.MethodGet, fx.server.URL+path, nil)
	if err != nil {
		fx.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer secret")
	resp, err := fx.server.Client().Do(req)
	if err != nil {
		fx.t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}
