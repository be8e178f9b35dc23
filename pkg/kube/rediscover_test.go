package kube

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

var (
	widgetsV1 = Resource{GVR: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}, Kind: "Widget", Namespaced: true}
	widgetsV2 = Resource{GVR: schema.GroupVersionResource{Group: "example.com", Version: "v2", Resource: "widgets"}, Kind: "Widget", Namespaced: true}
)

// widgetsServer serves widgets at v2 only, as after a CRD came back with
// another version; v1 answers 404, and so does v2 while status is set.
func widgetsServer(t *testing.T, status int) rest.Interface {
	t.Helper()
	mux := http.NewServeMux()
	notFound := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`)
	}
	mux.HandleFunc("/apis/example.com/v1/namespaces/ns/widgets", func(w http.ResponseWriter, r *http.Request) {
		if status != 0 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","code":500}`)
			return
		}
		notFound(w, r)
	})
	mux.HandleFunc("/apis/example.com/v2/namespaces/ns/widgets", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"kind":"WidgetList","apiVersion":"example.com/v2","metadata":{"resourceVersion":"7"},`+
			`"items":[{"metadata":{"name":"w","namespace":"ns","resourceVersion":"7"}}]}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	rc, err := NewRESTClient(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return rc
}

// TestRediscover: a 404 makes the client ask its Rediscover hook which
// version is served now and read that one from the next request on; other
// answers of the hook, other errors and no hook leave it where it is.
func TestRediscover(t *testing.T) {
	found := func(context.Context, Resource) (Resource, error) { return widgetsV2, nil }
	same := func(_ context.Context, r Resource) (Resource, error) { return r, nil }
	gone := func(context.Context, Resource) (Resource, error) { return Resource{}, errors.New("not served") }
	tests := []struct {
		name       string
		rediscover Rediscover
		status     int // the v1 path's answer instead of 404
		watch      bool
		want       Resource
		wantCalls  int
	}{
		{name: "list, another version served", rediscover: found, want: widgetsV2, wantCalls: 1},
		{name: "watch, another version served", rediscover: found, watch: true, want: widgetsV2, wantCalls: 1},
		{name: "the same version served", rediscover: same, want: widgetsV1, wantCalls: 1},
		{name: "not served yet", rediscover: gone, want: widgetsV1, wantCalls: 1},
		{name: "no hook", want: widgetsV1},
		{name: "not a 404", rediscover: found, status: http.StatusInternalServerError, want: widgetsV1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewClient(widgetsServer(t, tt.status), widgetsV1, Scope{Namespace: "ns"})
			calls := 0
			if tt.rediscover != nil {
				c.Rediscover(func(ctx context.Context, r Resource) (Resource, error) {
					calls++
					if r != widgetsV1 {
						t.Errorf("rediscovering %v, want %v", r, widgetsV1)
					}
					return tt.rediscover(ctx, r)
				})
			}
			var err error
			if tt.watch {
				_, err = c.Watch(t.Context(), watch.WatchRequest{})
			} else {
				_, err = c.List(t.Context(), watch.ListRequest{})
			}
			if tt.status == 0 && !apierrors.IsNotFound(err) {
				t.Fatalf("first request: %v, want the 404 (the watcher retries it)", err)
			}
			if got := c.Resource(); got != tt.want || calls != tt.wantCalls {
				t.Fatalf("reads %v after %d rediscoveries, want %v after %d", got, calls, tt.want, tt.wantCalls)
			}
			if tt.want != widgetsV2 {
				return
			}
			page, err := c.List(t.Context(), watch.ListRequest{})
			if err != nil || len(page.Items) != 1 || page.Items[0].Name != "w" {
				t.Fatalf("list after rediscovery: %+v, %v", page, err)
			}
			if v := page.Items[0].JSON(); !strings.Contains(string(v), `"apiVersion":"example.com/v2"`) {
				t.Errorf("item decoded as %s, want apiVersion example.com/v2", v)
			}
		})
	}
}

// resettableMapper counts resets of a mapper.
type resettableMapper struct {
	meta.RESTMapper
	resets int
}

func (m *resettableMapper) Reset() { m.resets++ }

// TestRediscoverWith: the mapper forgets what it discovered, then maps the
// group and kind to the version it prefers now; a kind it does not know is
// an error.
func TestRediscoverWith(t *testing.T) {
	dm := meta.NewDefaultRESTMapper([]schema.GroupVersion{{Group: "example.com", Version: "v2"}})
	dm.Add(schema.GroupVersionKind{Group: "example.com", Version: "v2", Kind: "Widget"}, meta.RESTScopeNamespace)
	mapper := &resettableMapper{RESTMapper: dm}
	got, err := RediscoverWith(mapper)(t.Context(), widgetsV1)
	if err != nil || got != widgetsV2 || mapper.resets != 1 {
		t.Errorf("got %v, %v after %d resets; want %v after 1", got, err, mapper.resets, widgetsV2)
	}
	gadgets := Resource{GVR: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gadgets"}, Kind: "Gadget", Namespaced: true}
	if got, err := RediscoverWith(mapper)(t.Context(), gadgets); err == nil {
		t.Errorf("rediscovering a kind the server does not serve: %v, want an error", got)
	}
}
