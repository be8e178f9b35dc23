package controller

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// apiRecorder is an API server that records the requests it gets and
// answers each with the next of its replies.
type apiRecorder struct {
	mu       sync.Mutex
	requests []apiRequest
	replies  []string
}

type apiRequest struct {
	method, path, query, contentType string
	body                             map[string]any
	raw                              string
}

func (a *apiRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	a.mu.Lock()
	defer a.mu.Unlock()
	req := apiRequest{method: r.Method, path: r.URL.Path, query: r.URL.RawQuery, contentType: r.Header.Get("Content-Type"), raw: string(raw)}
	_ = json.Unmarshal(raw, &req.body)
	a.requests = append(a.requests, req)
	reply := a.replies[0]
	a.replies = a.replies[1:]
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, reply)
}

func newFinalizer(t *testing.T, replies ...string) (Finalizer, *apiRecorder) {
	t.Helper()
	api := &apiRecorder{replies: replies}
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	client, err := dynamic.NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return Finalizer{Client: client, Resource: generators, Name: "kubectl-reflect.io/test", FieldManager: "kubectl-reflect-test-finalizer"}, api
}

func decoded(t *testing.T, doc string) *object.Object {
	t.Helper()
	o, err := object.Decode([]byte(doc), object.Prune{})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

const (
	genWithout = `{"apiVersion":"kubectl-reflect.io/v1alpha1","kind":"ConfigMapGenerator","metadata":{"namespace":"ns1","name":"g1","uid":"u1","resourceVersion":"7","finalizers":["other"]}}`
	genWith    = `{"apiVersion":"kubectl-reflect.io/v1alpha1","kind":"ConfigMapGenerator","metadata":{"namespace":"ns1","name":"g1","uid":"u1","resourceVersion":"8","finalizers":["other","kubectl-reflect.io/test"]}}`
)

func TestHasFinalizer(t *testing.T) {
	if HasFinalizer(decoded(t, genWithout), "kubectl-reflect.io/test") {
		t.Error("HasFinalizer true on an object without it")
	}
	if !HasFinalizer(decoded(t, genWith), "kubectl-reflect.io/test") {
		t.Error("HasFinalizer false on an object with it")
	}
}

func TestFinalizerAddAppliesOnlyTheFinalizer(t *testing.T) {
	f, api := newFinalizer(t, genWith)
	if err := f.Add(t.Context(), decoded(t, genWithout)); err != nil {
		t.Fatal(err)
	}
	if err := f.Add(t.Context(), decoded(t, genWith)); err != nil { // listed: no request
		t.Fatal(err)
	}
	if len(api.requests) != 1 {
		t.Fatalf("%d requests, want 1 apply", len(api.requests))
	}
	r := api.requests[0]
	if r.method != http.MethodPatch || r.contentType != "application/apply-patch+yaml" ||
		r.path != "/apis/kubectl-reflect.io/v1alpha1/namespaces/ns1/configmapgenerators/g1" ||
		r.query != "fieldManager=kubectl-reflect-test-finalizer&force=true" {
		t.Fatalf("request %s %s?%s (%s), want a forced apply of ns1/g1 under the field manager", r.method, r.path, r.query, r.contentType)
	}
	want := `{"apiVersion":"kubectl-reflect.io/v1alpha1","kind":"ConfigMapGenerator","metadata":{"finalizers":["kubectl-reflect.io/test"],"name":"g1","namespace":"ns1","resourceVersion":"7","uid":"u1"}}`
	if got, _ := json.Marshal(r.body); string(got) != want {
		t.Fatalf("applied %s, want %s", got, want)
	}
}

func TestFinalizerRemove(t *testing.T) {
	f, api := newFinalizer(t, genWithout)
	if err := f.Remove(t.Context(), decoded(t, genWith)); err != nil {
		t.Fatal(err)
	}
	if err := f.Remove(t.Context(), decoded(t, genWithout)); err != nil { // not listed: no request
		t.Fatal(err)
	}
	if len(api.requests) != 1 {
		t.Fatalf("%d requests, want 1 apply", len(api.requests))
	}
	want := `{"apiVersion":"kubectl-reflect.io/v1alpha1","kind":"ConfigMapGenerator","metadata":{"name":"g1","namespace":"ns1","resourceVersion":"8","uid":"u1"}}`
	if got, _ := json.Marshal(api.requests[0].body); string(got) != want {
		t.Fatalf("applied %s, want %s (no finalizers: the manager gives its own up)", got, want)
	}
}

func TestFinalizerRemoveListedByAnotherManager(t *testing.T) {
	f, api := newFinalizer(t, genWith, genWithout) // the apply leaves it: another manager owns it too
	if err := f.Remove(t.Context(), decoded(t, genWith)); err != nil {
		t.Fatal(err)
	}
	if len(api.requests) != 2 {
		t.Fatalf("%d requests, want an apply and a patch", len(api.requests))
	}
	r := api.requests[1]
	want := `[{"op":"test","path":"/metadata/finalizers/1","value":"kubectl-reflect.io/test"},{"op":"remove","path":"/metadata/finalizers/1"}]`
	if r.contentType != "application/json-patch+json" || r.raw != want {
		t.Fatalf("second request %s %s, want the JSON patch %s", r.contentType, r.raw, want)
	}
}
