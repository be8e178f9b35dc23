package serve

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// patience bounds every wait, as a guard against hangs only.
const patience = 10 * time.Second

var configMaps = kube.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Kind: "ConfigMap", Namespaced: true}

// created is every test object's creationTimestamp; clock is the
// handler's now, one hour later.
var (
	created = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock   = created.Add(time.Hour)
)

// cm is a ConfigMap at resourceVersion rv with labels k=v,... and the
// cells a server sends (Name, Data, Age).
func cm(t *testing.T, ns, name string, rv int, labels ...string) *object.Object {
	t.Helper()
	lbl := map[string]string{}
	for _, kv := range labels {
		k, v, _ := strings.Cut(kv, "=")
		lbl[k] = v
	}
	raw := mustJSON(map[string]any{
		"kind": "ConfigMap", "apiVersion": "v1",
		"metadata": map[string]any{
			"namespace": ns, "name": name, "resourceVersion": fmt.Sprint(rv), "labels": lbl,
			"creationTimestamp": created.Format(time.RFC3339),
		},
		"data": map[string]string{"k": fmt.Sprint(rv)},
	})
	o, err := object.Decode(raw, object.Prune{})
	if err != nil {
		t.Fatal(err)
	}
	o.Cells = mustJSON([]any{name, 1, "stale"})
	return o
}

var cmColumns = []object.Column{{Name: "Name", Type: "string", Format: "name"}, {Name: "Data", Type: "string"}, {Name: "Age", Type: "date"}}

// fakeServer is the API server of a test: it lists its objects at rv,
// then sends the watch events the test feeds.
type fakeServer struct {
	mu      sync.Mutex
	objects []*object.Object
	rv      string
	events  chan watch.WatchEvent[*object.Object]
	watches chan struct{} // a token per WATCH opened
}

func (f *fakeServer) newClient(res kube.Resource, _ kube.Scope) reflector.Client {
	return &fakeClient{f: f, res: res}
}

type fakeClient struct {
	f   *fakeServer
	res kube.Resource
}

func (c *fakeClient) Resource() kube.Resource  { return c.res }
func (c *fakeClient) Reuse(object.Known)       {}
func (c *fakeClient) Columns() []object.Column { return cmColumns }

func (c *fakeClient) List(context.Context, watch.ListRequest) (watch.Page[*object.Object], error) {
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	return watch.Page[*object.Object]{Items: c.f.objects, ResourceVersion: c.f.rv}, nil
}

func (c *fakeClient) Watch(ctx context.Context, _ watch.WatchRequest) (watch.Stream[*object.Object], error) {
	c.f.watches <- struct{}{}
	return &fakeStream{ctx: ctx, events: c.f.events, closed: make(chan struct{})}, nil
}

type fakeStream struct {
	ctx    context.Context
	events chan watch.WatchEvent[*object.Object]
	once   sync.Once
	closed chan struct{}
}

func (s *fakeStream) Next() (watch.WatchEvent[*object.Object], error) {
	select {
	case ev := <-s.events:
		return ev, nil
	case <-s.ctx.Done():
		return watch.WatchEvent[*object.Object]{}, s.ctx.Err()
	case <-s.closed:
		return watch.WatchEvent[*object.Object]{}, io.ErrUnexpectedEOF
	}
}

func (s *fakeStream) Close() { s.once.Do(func() { close(s.closed) }) }

// fixture is a handler over one reflector of ConfigMaps, served by an
// httptest server.
type fixture struct {
	t      *testing.T
	f      *fakeServer
	lease  *reflector.Lease
	server *httptest.Server
	now    *time.Time
}

func newFixture(t *testing.T, history int, objects ...*object.Object) *fixture {
	t.Helper()
	f := &fakeServer{objects: objects, rv: "10", events: make(chan watch.WatchEvent[*object.Object]), watches: make(chan struct{}, 10)}
	set := reflector.NewSet(reflector.SetOptions{NewClient: f.newClient, History: history})
	lease := set.Acquire(configMaps, kube.Scope{Table: true})
	ctx, cancel := context.WithTimeout(t.Context(), patience)
	defer cancel()
	if err := reflector.WaitForSync(ctx, lease); err != nil {
		t.Fatal(err)
	}
	select {
	case <-f.watches:
	case <-ctx.Done():
		t.Fatal("no WATCH opened")
	}
	now := clock
	h := New(Options{
		Resources: []Resource{{Source: lease, Discovery: metav1.APIResource{
			Name: "configmaps", SingularName: "configmap", Kind: "ConfigMap", Namespaced: true, ShortNames: []string{"cm"},
		}}},
		Version:          []byte(`{"major":"1","minor":"37"}`),
		BookmarkInterval: time.Hour,
		Now:              func() time.Time { return now },
	})
	fx := &fixture{t: t, f: f, lease: lease, server: httptest.NewServer(WithToken(h, "secret")), now: &now}
	t.Cleanup(func() {
		fx.server.CloseClientConnections()
		fx.server.Close()
		lease.Release()
	})
	return fx
}

// send feeds one watch event to the reflector and waits until its store
// has applied it.
func (fx *fixture) send(typ watch.WatchEventType, o *object.Object) {
	fx.t.Helper()
	ctx, cancel := context.WithTimeout(fx.t.Context(), patience)
	defer cancel()
	sub, err := fx.lease.SubscribeFrom(ctx, fx.lease.ResourceVersion(), store.SubscribeOptions{})
	if err != nil {
		fx.t.Fatal(err)
	}
	defer sub.Close()
	select {
	case fx.f.events <- watch.WatchEvent[*object.Object]{Type: typ, Object: o, ResourceVersion: o.ResourceVersion}:
	case <-ctx.Done():
		fx.t.Fatal("the reflector took no event")
	}
	for {
		c, err := sub.Next(ctx)
		if err != nil {
			fx.t.Fatalf("the store did not apply %s: %v", o.ResourceVersion, err)
		}
		if c.ResourceVersion == o.ResourceVersion {
			return
		}
	}
}

// get does a GET with the token and headers as key, value pairs.
func (fx *fixture) get(path string, headers ...string) (int, string) {
	fx.t.Helper()
	return fx.do(http.MethodGet, path, append([]string{"Authorization", "Bearer secret"}, headers...)...)
}

func (fx *fixture) do(method, path string, headers ...string) (int, string) {
	fx.t.Helper()
	req, err := http.NewRequest(method, fx.server.URL+path, nil)
	if err != nil {
		fx.t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := fx.server.Client().Do(req)
	if err != nil {
		fx.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		fx.t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}
