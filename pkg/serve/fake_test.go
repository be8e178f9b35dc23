package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	"go.uber.org/goleak"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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
func cm(t testing.TB, ns, name string, rv int, labels ...string) *object.Object {
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

var cmColumns = []object.Column{{Name: "Name", Type: "string", Format: "name"}, {Name: "Data", Type: "string"}, {Name: "Age", Type: "string"}}

// fakeServer is the API server of a test: it lists its objects at rv,
// then sends the watch events the test feeds.
type fakeServer struct {
	mu      sync.Mutex
	objects []*object.Object
	rv      string
	events  chan watch.WatchEvent[*object.Object]
	watches chan struct{} // a token per WATCH opened
	// past are the events sent (as the API server's watch cache keeps
	// them): a backfill's watch (a short timeoutSeconds: the reflector's
	// own are minutes long) is sent those after its resourceVersion, then
	// a bookmark at the latest; one from before oldest is answered 410.
	past   []watch.WatchEvent[*object.Object]
	latest string
	oldest uint64
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

func (c *fakeClient) Watch(ctx context.Context, req watch.WatchRequest) (watch.Stream[*object.Object], error) {
	if req.TimeoutSeconds > 0 && req.TimeoutSeconds < 60 {
		return c.f.backfill(req.ResourceVersion), nil
	}
	c.f.watches <- struct{}{}
	return &fakeStream{ctx: ctx, events: c.f.events, closed: make(chan struct{})}, nil
}

// backfill is the stream of a backfill's watch from rv: the past events
// after it and a bookmark at the server's rv, or the API server's 410.
func (f *fakeServer) backfill(rv string) watch.Stream[*object.Object] {
	f.mu.Lock()
	defer f.mu.Unlock()
	from, _ := store.ParseRV(rv)
	var evs []watch.WatchEvent[*object.Object]
	if from < f.oldest {
		msg := fmt.Sprintf("too old resource version: %d (%d)", from, f.oldest)
		evs = append(evs, watch.WatchEvent[*object.Object]{Type: watch.WatchError, Err: apierrors.NewResourceExpired(msg)})
	} else {
		for _, ev := range f.past {
			if n, _ := store.ParseRV(ev.ResourceVersion); n > from {
				evs = append(evs, ev)
			}
		}
		evs = append(evs, watch.WatchEvent[*object.Object]{Type: watch.WatchBookmark, ResourceVersion: store.MaxRV(f.rv, f.latest)})
	}
	return &sliceStream{events: evs}
}

// sliceStream sends its events, then io.EOF.
type sliceStream struct {
	events []watch.WatchEvent[*object.Object]
}

func (s *sliceStream) Next() (watch.WatchEvent[*object.Object], error) {
	if len(s.events) == 0 {
		return watch.WatchEvent[*object.Object]{}, io.EOF
	}
	ev := s.events[0]
	s.events = s.events[1:]
	return ev, nil
}

func (s *sliceStream) Close() {}

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
	t      testing.TB
	f      *fakeServer
	handle *reflector.Handle
	server *httptest.Server
	now    *atomic.Pointer[time.Time] // the handler's clock (Options.Now); see advance
	h      *Handler
}

// advance moves the handler's clock by d.
func (fx *fixture) advance(d time.Duration) {
	t := fx.now.Load().Add(d)
	fx.now.Store(&t)
}

func newFixture(t testing.TB, window int, objects ...*object.Object) *fixture {
	t.Helper()
	return newFixtureWith(t, window, time.Hour, objects...)
}

func newFixtureWith(t testing.TB, window int, bookmarks time.Duration, objects ...*object.Object) *fixture {
	t.Helper()
	return newFixtureOpts(t, window, Options{BookmarkInterval: bookmarks}, objects...)
}

// newFixtureOpts is a fixture whose handler has opts (its Resources, Version
// and Now are the fixture's).
func newFixtureOpts(t testing.TB, window int, opts Options, objects ...*object.Object) *fixture {
	t.Helper()
	f := &fakeServer{objects: objects, rv: "10", events: make(chan watch.WatchEvent[*object.Object]), watches: make(chan struct{}, 10)}
	set := reflector.NewSet(reflector.SetOptions{NewClient: f.newClient, Window: window})
	handle := set.Acquire(configMaps, kube.Scope{Shape: kube.Shape{Table: true}})
	ctx, cancel := context.WithTimeout(t.Context(), patience)
	defer cancel()
	if err := reflector.WaitForSync(ctx, handle); err != nil {
		t.Fatal(err)
	}
	select {
	case <-f.watches:
	case <-ctx.Done():
		t.Fatal("no WATCH opened")
	}
	now := new(atomic.Pointer[time.Time])
	start := clock
	now.Store(&start)
	opts.Resources = []Resource{{Source: handle, Discovery: metav1.APIResource{
		Name: "configmaps", SingularName: "configmap", Kind: "ConfigMap", Namespaced: true, ShortNames: []string{"cm"},
	}, SelectableFields: []string{"data.k"}}} // as a custom resource's definition may make a field selectable
	opts.Version = []byte(`{"major":"1","minor":"37"}`)
	opts.Now = func() time.Time { return *now.Load() }
	h := New(opts)
	fx := &fixture{t: t, f: f, handle: handle, server: httptest.NewServer(WithToken(h, "secret")), now: now, h: h}
	t.Cleanup(func() {
		fx.server.CloseClientConnections()
		fx.server.Close()
		handle.Release()
	})
	return fx
}

// send feeds one watch event to the reflector and waits until its store
// has applied it.
func (fx *fixture) send(typ watch.WatchEventType, o *object.Object) {
	fx.t.Helper()
	ctx, cancel := context.WithTimeout(fx.t.Context(), patience)
	defer cancel()
	sub, err := fx.handle.SubscribeFrom(ctx, fx.handle.ResourceVersion(), store.SubscribeOptions{})
	if err != nil {
		fx.t.Fatal(err)
	}
	defer sub.Close()
	ev := watch.WatchEvent[*object.Object]{Type: typ, Object: o, ResourceVersion: o.ResourceVersion}
	fx.f.mu.Lock()
	fx.f.past, fx.f.latest = append(fx.f.past, ev), o.ResourceVersion
	fx.f.mu.Unlock()
	select {
	case fx.f.events <- ev:
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

// serverHistoryFrom makes the server's watch cache hold the events after
// rv only: a backfill from before it is answered 410.
func (fx *fixture) serverHistoryFrom(rv uint64) {
	fx.f.mu.Lock()
	defer fx.f.mu.Unlock()
	fx.f.oldest = rv
}

// relist makes the server answer the reflector's WATCH 410 Gone and list
// objects at rv, and waits until the store has swapped the relist in.
func (fx *fixture) relist(rv string, objects ...*object.Object) {
	fx.t.Helper()
	ctx, cancel := context.WithTimeout(fx.t.Context(), patience)
	defer cancel()
	fx.f.mu.Lock()
	fx.f.objects, fx.f.rv = objects, rv
	fx.f.oldest, _ = store.ParseRV(rv) // the server's history begins there: the reason for the 410
	fx.f.mu.Unlock()
	sub, err := fx.handle.SubscribeFrom(ctx, fx.handle.ResourceVersion(), store.SubscribeOptions{})
	if err != nil {
		fx.t.Fatal(err)
	}
	defer sub.Close()
	select {
	case fx.f.events <- watch.WatchEvent[*object.Object]{Type: watch.WatchError, Err: apierrors.NewResourceExpired("too old resource version")}:
	case <-ctx.Done():
		fx.t.Fatal("the reflector was not watching")
	}
	for fx.handle.ResourceVersion() != rv {
		if _, err := sub.Next(ctx); err != nil {
			fx.t.Fatalf("the store did not relist at %s: %v", rv, err)
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
	code, body, err := fx.request(method, path, headers...)
	if err != nil {
		fx.t.Fatal(err)
	}
	return code, body
}

// request is do for any goroutine: it fails nothing.
func (fx *fixture) request(method, path string, headers ...string) (int, string, error) {
	return fx.exchange(method, path, nil, headers...)
}

// post POSTs body, with the daemon's token unless headers set another
// Authorization.
func (fx *fixture) post(path, body string, headers ...string) (int, string, error) {
	return fx.exchange(http.MethodPost, path, strings.NewReader(body), append([]string{"Authorization", "Bearer secret"}, headers...)...)
}

func (fx *fixture) exchange(method, path string, in io.Reader, headers ...string) (int, string, error) {
	req, err := http.NewRequest(method, fx.server.URL+path, in)
	if err != nil {
		return 0, "", err
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := fx.server.Client().Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// watchEvent is what a test reads of a watch event.
type watchEvent struct {
	Type   string
	Object json.RawMessage
}

func (e watchEvent) String() string {
	o := string(e.Object)
	if e.Type == "END" {
		return e.Type
	}
	if e.Type == "ERROR" {
		return e.Type + " " + gjson.Get(o, "code").Raw + " " + gjson.Get(o, "reason").Str
	}
	if gjson.Get(o, "kind").Str == "Table" {
		o = gjson.Get(o, "rows.0.object").Raw
	}
	return e.Type + " " + gjson.Get(o, "metadata.name").Str + "@" + gjson.Get(o, "metadata.resourceVersion").Str
}

// watchClient reads a watch's events as they come.
type watchClient struct {
	t      testing.TB
	code   int
	events chan watchEvent // closed at the end of the stream
}

func (fx *fixture) watch(path string, headers ...string) *watchClient {
	fx.t.Helper()
	req, err := http.NewRequestWithContext(fx.t.Context(), http.MethodGet, fx.server.URL+path, nil)
	if err != nil {
		fx.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer secret")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := fx.server.Client().Do(req)
	if err != nil {
		fx.t.Fatal(err)
	}
	wc := &watchClient{t: fx.t, code: resp.StatusCode, events: make(chan watchEvent, 100)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(wc.events)
		dec := json.NewDecoder(resp.Body)
		for {
			var ev watchEvent
			if err := dec.Decode(&ev); err != nil {
				return
			}
			wc.events <- ev
		}
	}()
	fx.t.Cleanup(func() {
		resp.Body.Close()
		<-done
	})
	return wc
}

// next is the next event; "END" when the stream ended.
func (wc *watchClient) next() watchEvent {
	wc.t.Helper()
	select {
	case ev, ok := <-wc.events:
		if !ok {
			return watchEvent{Type: "END"}
		}
		return ev
	case <-time.After(patience):
		wc.t.Fatal("no watch event")
		return watchEvent{}
	}
}

// expect reads len(want) events and compares them with want.
func (wc *watchClient) expect(want ...string) {
	wc.t.Helper()
	var got []string
	for range want {
		got = append(got, wc.next().String())
	}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		wc.t.Errorf("events:\n got %s\nwant %s", strings.Join(got, ", "), strings.Join(want, ", "))
	}
}
