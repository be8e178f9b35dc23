package serve

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// The API server's resources of the on-demand tests.
var (
	discoveredConfigMaps = metav1.APIResource{Name: "configmaps", Version: "v1", Kind: "ConfigMap", Namespaced: true, ShortNames: []string{"cm"}}
	discoveredWidgets    = metav1.APIResource{Name: "widgets", Group: "example.com", Version: "v1", Kind: "Widget", Namespaced: true}
	discoveredDeploys    = metav1.APIResource{Name: "deployments", Group: "apps", Version: "v1", Kind: "Deployment", Namespaced: true, ShortNames: []string{"deploy"}}
)

// gatedClient is a fake client whose LIST waits for gate (if not nil),
// then fails with listErr (if not nil) or lists as the fake server does.
type gatedClient struct {
	reflector.Client
	gate    <-chan struct{}
	listErr error
}

func (c gatedClient) List(ctx context.Context, req watch.ListRequest) (watch.Page[*object.Object], error) {
	if c.gate != nil {
		select {
		case <-c.gate:
		case <-ctx.Done():
			return watch.Page[*object.Object]{}, ctx.Err()
		}
	}
	if c.listErr != nil {
		return watch.Page[*object.Object]{}, c.listErr
	}
	return c.Client.List(ctx, req)
}

// onDemandFixture is a handler that serves nothing at first and adds
// resources on demand from a fake server.
type onDemandFixture struct {
	t       *testing.T
	f       *fakeServer
	set     *reflector.Set
	h       *Handler
	starts  atomic.Int32
	changes chan []kube.Resource

	mu          sync.Mutex
	listErr     error
	allErr      error    // the LIST's error in every namespace, if not nil (a user allowed some namespaces)
	nsErr       error    // the LIST's error in namespace "hidden", if not nil
	namespaces  []string // those of the starts, "" for every namespace
	gate        chan struct{}
	rediscovers int
	server      []metav1.APIResource // what Rediscover reads
	running     []int                // reflectors running in the set each time Changed was told
}

func newOnDemandFixture(t *testing.T, discovered ...metav1.APIResource) *onDemandFixture {
	t.Helper()
	return newOnDemandFixtureWith(t, OnDemand{}, discovered...)
}

// newOnDemandFixtureWith is newOnDemandFixture with opts' ReleaseIdle.
func newOnDemandFixtureWith(t *testing.T, opts OnDemand, discovered ...metav1.APIResource) *onDemandFixture {
	t.Helper()
	fx := &onDemandFixture{
		t: t, f: &fakeServer{rv: "10", events: make(chan watch.WatchEvent[*object.Object]), watches: make(chan struct{}, 10)},
		changes: make(chan []kube.Resource, 10), server: discovered,
	}
	fx.set = reflector.NewSet(reflector.SetOptions{NewClient: func(res kube.Resource, scope kube.Scope) reflector.Client {
		fx.mu.Lock()
		defer fx.mu.Unlock()
		listErr := fx.listErr
		if scope.Namespace == "" && fx.allErr != nil {
			listErr = fx.allErr
		}
		if scope.Namespace == "hidden" && fx.nsErr != nil {
			listErr = fx.nsErr
		}
		return gatedClient{Client: fx.f.newClient(res, scope), gate: fx.gate, listErr: listErr}
	}, Window: 16})
	fx.h = New(Options{OnDemand: &OnDemand{
		Discovered: discovered,
		Rediscover: func(context.Context) ([]metav1.APIResource, error) {
			fx.mu.Lock()
			defer fx.mu.Unlock()
			fx.rediscovers++
			return fx.server, nil
		},
		Start: func(_ context.Context, res kube.Resource, namespace string) (Started, error) {
			fx.starts.Add(1)
			fx.mu.Lock()
			fx.namespaces = append(fx.namespaces, namespace)
			fx.mu.Unlock()
			return Started{Source: fx.set.Acquire(res, kube.Scope{Namespace: namespace, Shape: kube.Shape{Table: true}})}, nil
		},
		Changed: func(rs []kube.Resource) {
			fx.mu.Lock()
			fx.running = append(fx.running, fx.set.Len())
			fx.mu.Unlock()
			fx.changes <- rs
		},
		ReleaseIdle: opts.ReleaseIdle,
	}})
	t.Cleanup(fx.h.Close)
	return fx
}

func (fx *onDemandFixture) get(path string) (int, string) {
	rec := httptest.NewRecorder()
	req := httptest.NewRequestWithContext(fx.t.Context(), http.MethodGet, path, nil)
	fx.h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

// TestOnDemandDiscovery: with OnDemand, discovery lists every resource of
// the API server's (in its order) before any is cached.
func TestOnDemandDiscovery(t *testing.T) {
	fx := newOnDemandFixture(t, discoveredConfigMaps, discoveredWidgets, discoveredDeploys)
	if code, body := fx.get("/api/v1"); code != 200 || names(body, "resources.#.name") != "configmaps" || names(body, "resources.0.verbs") != "get list watch" {
		t.Errorf("/api/v1 = %d %s", code, body)
	}
	if code, body := fx.get("/apis"); code != 200 || names(body, "groups.#.name") != "example.com apps" {
		t.Errorf("/apis = %d %s", code, body)
	}
	code, body := fx.get("/apis/apps/v1")
	if code != 200 || names(body, "resources.#.name") != "deployments" || names(body, "resources.0.shortNames") != "deploy" {
		t.Errorf("/apis/apps/v1 = %d %s", code, body)
	}
	if n := fx.starts.Load(); n != 0 {
		t.Errorf("discovery started %d reflectors", n)
	}
}

// TestOnDemandAdds: the first request of a resource starts its reflector
// and is answered from it; the next requests share it; Changed and Status
// say it is served.
func TestOnDemandAdds(t *testing.T) {
	fx := newOnDemandFixture(t, discoveredConfigMaps, discoveredDeploys)
	fx.f.objects = []*object.Object{cm(t, "a", "x", 5)}
	for range 2 {
		code, body := fx.get("/api/v1/namespaces/a/configmaps")
		if code != 200 || names(body, "items.#.metadata.name") != "x" || gjson.Get(body, "metadata.resourceVersion").Str != "10" {
			t.Fatalf("list = %d %s", code, body)
		}
	}
	if n := fx.starts.Load(); n != 1 {
		t.Errorf("%d starts, want 1", n)
	}
	if got := <-fx.changes; len(got) != 1 || got[0].String() != "configmaps" {
		t.Errorf("Changed(%v), want configmaps", got)
	}
	if st := fx.h.Status(); len(st) != 1 || st[0].Resource != "configmaps" || st[0].Objects != 1 {
		t.Errorf("Status = %+v", st)
	}
	if !fx.h.Ready() {
		t.Error("not ready")
	}
}

// TestOnDemandForbidden: a resource whose LIST the API server refuses is
// answered with the server's 403, is not kept, and is tried again at the
// next request.
func TestOnDemandForbidden(t *testing.T) {
	fx := newOnDemandFixture(t, discoveredConfigMaps)
	const msg = `configmaps is forbidden: User "u" cannot list resource "configmaps" in API group "" at the cluster scope`
	fx.listErr = apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "", errString(`User "u" cannot list resource "configmaps" in API group "" at the cluster scope`))
	for i := range 2 {
		code, body := fx.get("/api/v1/configmaps")
		if code != 403 || gjson.Get(body, "reason").Str != "Forbidden" || gjson.Get(body, "message").Str != msg {
			t.Fatalf("request %d = %d %s", i, code, body)
		}
	}
	if n := fx.starts.Load(); n != 2 {
		t.Errorf("%d starts, want 2 (a failed one is not kept)", n)
	}
	if n := fx.set.Len(); n != 0 {
		t.Errorf("%d reflectors run, want 0", n)
	}
	if st := fx.h.Status(); len(st) != 0 {
		t.Errorf("Status = %+v, want nothing served", st)
	}
}

// TestOnDemandNamespaces: for a user whom the API server refuses the
// resource in every namespace, a request of one namespace is answered
// from a cache of that namespace alone, kept for the next; a request of
// every namespace gets the API server's 403.
func TestOnDemandNamespaces(t *testing.T) {
	fx := newOnDemandFixture(t, discoveredConfigMaps)
	fx.f.objects = []*object.Object{cm(t, "a", "x", 5)}
	const msg = `configmaps is forbidden: User "u" cannot list resource "configmaps" in API group "" at the cluster scope`
	fx.allErr = apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "", errString(`User "u" cannot list resource "configmaps" in API group "" at the cluster scope`))
	for i := range 2 {
		if code, body := fx.get("/api/v1/namespaces/a/configmaps"); code != 200 || names(body, "items.#.metadata.name") != "x" {
			t.Fatalf("request %d of namespace a = %d %s", i, code, body)
		}
	}
	if code, body := fx.get("/api/v1/namespaces/a/configmaps/x"); code != 200 || gjson.Get(body, "metadata.name").Str != "x" {
		t.Errorf("get = %d %s", code, body)
	}
	if code, body := fx.get("/api/v1/configmaps"); code != 403 || gjson.Get(body, "message").Str != msg {
		t.Errorf("every namespace = %d %s", code, body)
	}
	if got := strings.Join(fx.namespaces, ","); got != ",a," {
		t.Errorf("starts in namespaces %q, want every one, then a (kept), then every one", got)
	}
	if st := fx.h.Status(); len(st) != 1 || st[0].Resource != "configmaps" || st[0].Namespace != "a" || st[0].Objects != 1 {
		t.Errorf("Status = %+v, want configmaps in namespace a", st)
	}
	if n := fx.set.Len(); n != 1 {
		t.Errorf("%d reflectors run, want 1", n)
	}
	if len(fx.changes) != 0 {
		t.Errorf("Changed(%v), want no call: nothing is served in every namespace", <-fx.changes)
	}
}

// TestOnDemandRefusedNamespace: once the API server refused every
// namespace, a request of one namespace costs one LIST (that namespace's),
// as at the API server, whether the user may read it or not, for
// refusedFor; then every namespace is tried again (a grant may have come).
func TestOnDemandRefusedNamespace(t *testing.T) {
	now := clock
	fx := newOnDemandFixture(t, discoveredConfigMaps)
	fx.h.onDemand.now = func() time.Time { return now }
	fx.f.objects = []*object.Object{cm(t, "a", "x", 5)}
	fx.allErr = apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "", errString("every namespace"))
	fx.nsErr = apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "", errString("namespace hidden"))
	steps := []struct {
		after time.Duration
		want  string // the namespaces of the starts so far
	}{
		{0, ",hidden"},
		{refusedFor - time.Second, ",hidden,hidden"},
		{refusedFor, ",hidden,hidden,,hidden"},
	}
	for _, st := range steps {
		now = clock.Add(st.after)
		if code, body := fx.get("/api/v1/namespaces/hidden/configmaps"); code != 403 || !strings.Contains(body, "namespace hidden") {
			t.Errorf("after %v: namespace hidden = %d %s, want the API server's 403", st.after, code, body)
		}
		if got := strings.Join(fx.namespaces, ","); got != st.want {
			t.Errorf("after %v: starts in %q, want %q", st.after, got, st.want)
		}
	}
	if code, _ := fx.get("/api/v1/namespaces/a/configmaps"); code != 200 || strings.Join(fx.namespaces, ",") != ",hidden,hidden,,hidden,a" {
		t.Errorf("namespace a = %d after starts in %q, want 200 from a's own cache", code, fx.namespaces)
	}
}

// TestGivenNamespace: a resource given in one namespace answers the
// requests of that namespace; one of every namespace is added on demand as
// if it were not given (here refused: the user may read one namespace).
func TestGivenNamespace(t *testing.T) {
	fx := newOnDemandFixture(t, discoveredConfigMaps)
	fx.f.objects = []*object.Object{cm(t, "a", "x", 5)}
	fx.allErr = apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "", errString("every namespace"))
	handle := fx.set.Acquire(configMaps, kube.Scope{Namespace: "a", Shape: kube.Shape{Table: true}})
	t.Cleanup(handle.Release)
	if err := reflector.WaitForSync(t.Context(), handle); err != nil {
		t.Fatal(err)
	}
	fx.h = New(Options{Resources: []Resource{{Source: handle, Discovery: discoveredConfigMaps, Namespace: "a"}}, OnDemand: fx.h.opts.OnDemand})
	t.Cleanup(fx.h.Close)
	if code, body := fx.get("/api/v1/namespaces/a/configmaps"); code != 200 || names(body, "items.#.metadata.name") != "x" || fx.starts.Load() != 0 {
		t.Errorf("namespace a = %d %s after %d starts, want it from the resource given", code, body, fx.starts.Load())
	}
	if code, body := fx.get("/api/v1/configmaps"); code != 403 || !strings.Contains(body, "every namespace") {
		t.Errorf("every namespace = %d %s", code, body)
	}
	if code, _ := fx.get("/api/v1/namespaces/b/configmaps"); code != 200 || strings.Join(fx.namespaces, ",") != ",b" {
		t.Errorf("namespace b = %d after starts in %q, want 200 after every namespace (refused, and remembered), then b", code, fx.namespaces)
	}
	if st := fx.h.Status(); len(st) != 2 || st[0].Namespace != "a" || st[1].Namespace != "b" {
		t.Errorf("Status = %+v, want configmaps in a, then in b", st)
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// TestOnDemandRediscovers: a resource the copy of the server's discovery
// lacks makes the handler read it again (at most once a second); one the
// server lacks too is 404.
func TestOnDemandRediscovers(t *testing.T) {
	now := clock
	fx := newOnDemandFixture(t, discoveredConfigMaps)
	fx.h.onDemand.now = func() time.Time { return now }
	fx.h.onDemand.readAt = now
	fx.server = []metav1.APIResource{discoveredConfigMaps, discoveredWidgets}

	if code, _ := fx.get("/apis/example.com/v1/widgets"); code != 404 || fx.rediscovers != 0 {
		t.Errorf("within a second of the last read: %d after %d reads, want 404 after 0", code, fx.rediscovers)
	}
	now = now.Add(time.Second)
	if code, body := fx.get("/apis/example.com/v1/widgets"); code != 200 || fx.rediscovers != 1 {
		t.Errorf("widgets = %d %s after %d reads, want 200 after 1", code, body, fx.rediscovers)
	}
	if code, body := fx.get("/apis"); code != 200 || names(body, "groups.#.name") != "example.com" {
		t.Errorf("/apis = %d %s", code, body)
	}
	now = now.Add(time.Second)
	code, body := fx.get("/apis/example.com/v1/gadgets")
	if code != 404 || fx.rediscovers != 2 || !strings.Contains(gjson.Get(body, "message").Str, "not cached") {
		t.Errorf("gadgets = %d %s after %d reads, want 404 after 2", code, body, fx.rediscovers)
	}
}

// TestOnDemandConcurrentFirstRequests: requests that come while a
// resource is being listed wait for the same reflector: one LIST, one
// WATCH.
func TestOnDemandConcurrentFirstRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fx := newOnDemandFixture(t, discoveredConfigMaps)
		fx.f.objects = []*object.Object{cm(t, "a", "x", 5)}
		fx.gate = make(chan struct{})
		codes := make(chan int, 3)
		for range 3 {
			go func() {
				code, _ := fx.get("/api/v1/configmaps")
				codes <- code
			}()
		}
		synctest.Wait() // every request waits for the first list
		close(fx.gate)
		for range 3 {
			if code := <-codes; code != 200 {
				t.Errorf("code %d", code)
			}
		}
		if n := fx.starts.Load(); n != 1 {
			t.Errorf("%d starts, want 1", n)
		}
		<-fx.f.watches
		synctest.Wait()
		if n := len(fx.f.watches); n != 0 {
			t.Errorf("%d more WATCHes, want 1 in all", n)
		}
		fx.h.Close()
	})
}

// TestOnDemandSyncWait: a request waits for a first list at most
// SyncWait, then is answered 504; the reflector keeps listing for the
// next request.
func TestOnDemandSyncWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fx := newOnDemandFixture(t, discoveredConfigMaps)
		fx.gate = make(chan struct{})
		code, body := fx.get("/api/v1/configmaps")
		if code != 504 || !strings.Contains(gjson.Get(body, "message").Str, "still being listed") {
			t.Errorf("first = %d %s", code, body)
		}
		close(fx.gate)
		if code, body = fx.get("/api/v1/configmaps"); code != 200 || fx.starts.Load() != 1 {
			t.Errorf("second = %d %s after %d starts", code, body, fx.starts.Load())
		}
		fx.h.Close()
	})
}

// TestOnDemandDropped: a resource whose reflector stops for good after
// its first list is dropped: its watches end and the next request hears
// why.
func TestOnDemandDropped(t *testing.T) {
	fx := newOnDemandFixture(t, discoveredConfigMaps)
	srv := httptest.NewServer(fx.h)
	t.Cleanup(srv.Close)
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/api/v1/configmaps?watch=1", nil)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	<-fx.changes
	fx.mu.Lock()
	fx.listErr = apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "", errString("revoked"))
	fx.mu.Unlock()
	fx.f.events <- watch.WatchEvent[*object.Object]{Type: watch.WatchError, Err: fx.listErr}
	if got := <-fx.changes; len(got) != 0 {
		t.Errorf("Changed(%v), want nothing served", got)
	}
	if _, err := io.ReadAll(resp.Body); err != nil {
		t.Errorf("the watch did not end cleanly: %v", err)
	}
	if code, body := fx.get("/api/v1/configmaps"); code != 403 || !strings.Contains(body, "revoked") {
		t.Errorf("after = %d %s", code, body)
	}
}

// TestOnDemandReleaseIdle: with ReleaseIdle, a resource added on demand
// that no request used for that long is dropped and added again by the
// next request; one a watch is open on is kept, and dropped once idle
// after the watch ends.
func TestOnDemandReleaseIdle(t *testing.T) {
	const idle = time.Minute
	tests := []struct {
		name  string
		watch bool // a watch stays open over twice idle, then ends
	}{
		{"listed once", false},
		{"watched", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fx := newOnDemandFixtureWith(t, OnDemand{ReleaseIdle: idle}, discoveredConfigMaps)
				fx.f.objects = []*object.Object{cm(t, "a", "x", 5)}
				if code, body := fx.get("/api/v1/configmaps"); code != 200 {
					t.Fatalf("list = %d %s", code, body)
				}
				<-fx.changes
				if tt.watch {
					ctx, cancel := context.WithCancel(t.Context())
					done := make(chan struct{})
					go func() {
						defer close(done)
						req := httptest.NewRequestWithContext(ctx, http.MethodGet, "/api/v1/configmaps?watch=1&resourceVersion=10", nil)
						fx.h.ServeHTTP(httptest.NewRecorder(), req)
					}()
					time.Sleep(2 * idle)
					synctest.Wait()
					if st := fx.h.Status(); len(st) != 1 || st[0].Watchers != 1 {
						t.Fatalf("with a watch open over %s, Status = %+v, want configmaps kept", 2*idle, st)
					}
					cancel()
					<-done
				}
				time.Sleep(idle - time.Second)
				synctest.Wait()
				if st := fx.h.Status(); len(st) != 1 {
					t.Fatalf("%s after the last request, Status = %+v, want configmaps kept", idle-time.Second, st)
				}
				select {
				case got := <-fx.changes:
					if len(got) != 0 {
						t.Errorf("Changed(%v), want nothing served", got)
					}
				case <-time.After(idle/4 + 2*time.Second):
					t.Fatalf("still served %s after the last request", idle+idle/4)
				}
				if st := fx.h.Status(); len(st) != 0 {
					t.Errorf("idle for over %s, Status = %+v, want nothing", idle, st)
				}
				fx.mu.Lock()
				running := fx.running[len(fx.running)-1]
				fx.mu.Unlock()
				if running != 0 {
					t.Errorf("%d reflectors running when Changed was told of the release, want 0", running)
				}
				if code, body := fx.get("/api/v1/configmaps"); code != 200 || names(body, "items.#.metadata.name") != "x" {
					t.Errorf("list after the release = %d %s", code, body)
				}
				if n := fx.starts.Load(); n != 2 {
					t.Errorf("%d starts, want 2 (added again)", n)
				}
				fx.h.Close()
			})
		})
	}
}

// TestKeep: a resource kept is served without a request (Changed and
// Status say so), is not released however long it stays idle, is kept
// when a request started it first, and is dropped when its reflector
// stops for good.
func TestKeep(t *testing.T) {
	const idle = time.Minute
	synctest.Test(t, func(t *testing.T) {
		fx := newOnDemandFixtureWith(t, OnDemand{ReleaseIdle: idle}, discoveredConfigMaps, discoveredDeploys)
		fx.f.objects = []*object.Object{cm(t, "a", "x", 5)}
		fx.h.Keep(discoveredConfigMaps)
		if got := <-fx.changes; len(got) != 1 || got[0].String() != "configmaps" {
			t.Fatalf("Changed(%v), want configmaps", got)
		}
		fx.h.Keep(discoveredConfigMaps) // served already: the same reflector
		if code, body := fx.get("/api/v1/configmaps"); code != 200 || names(body, "items.#.metadata.name") != "x" {
			t.Fatalf("list = %d %s", code, body)
		}
		// deployments: started by a request, then kept.
		if code, body := fx.get("/apis/apps/v1/deployments"); code != 200 {
			t.Fatalf("list of deployments = %d %s", code, body)
		}
		<-fx.changes
		fx.h.Keep(discoveredDeploys)
		time.Sleep(3 * idle)
		synctest.Wait()
		if st := fx.h.Status(); len(st) != 2 {
			t.Fatalf("idle for %s, Status = %+v, want both kept", 3*idle, st)
		}
		if n := fx.starts.Load(); n != 2 {
			t.Errorf("%d starts, want 2", n)
		}
		fx.mu.Lock()
		fx.listErr = apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "", errString("revoked"))
		fx.mu.Unlock()
		fx.f.events <- watch.WatchEvent[*object.Object]{Type: watch.WatchError, Err: fx.listErr} // to one of the two watches
		if got := <-fx.changes; len(got) != 1 {
			t.Errorf("Changed(%v), want one served once the other's reflector stopped", got)
		}
		fx.h.Close()
	})
}
