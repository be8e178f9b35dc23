package reflector

import (
	"context"
	"sync"
	"testing"

	"go.uber.org/goleak"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var (
	configMaps = kube.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Kind: "ConfigMap", Namespaced: true}
	nodes      = kube.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "nodes"}, Kind: "Node"}
)

// fakeServer makes fake clients that list fixed objects (those of their
// scope's namespace) at resourceVersion "10", then watch until cancelled,
// and counts what they were asked. A resource in forbid fails with 403.
type fakeServer struct {
	objects []*object.Object
	forbid  map[kube.Resource]bool

	mu      sync.Mutex
	clients int
	scopes  []kube.Scope // of every client, in order
	lists   int
	watches chan struct{} // a token per WATCH opened
}

func newFakeServer(objects ...*object.Object) *fakeServer {
	return &fakeServer{objects: objects, forbid: map[kube.Resource]bool{}, watches: make(chan struct{}, 100)}
}

func (f *fakeServer) newClient(res kube.Resource, scope kube.Scope) Client {
	f.mu.Lock()
	f.clients++
	f.scopes = append(f.scopes, scope)
	f.mu.Unlock()
	return &fakeClient{f: f, res: res, scope: scope}
}

func (f *fakeServer) counts() (clients, lists int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.clients, f.lists
}

type fakeClient struct {
	f     *fakeServer
	res   kube.Resource
	scope kube.Scope
}

func (c *fakeClient) Resource() kube.Resource  { return c.res }
func (c *fakeClient) Reuse(object.Known)       {}
func (c *fakeClient) Columns() []object.Column { return nil }
func (c *fakeClient) forbidden() error {
	return apierrors.NewForbidden(c.res.GVR.GroupResource(), "", nil)
}

func (c *fakeClient) List(ctx context.Context, _ watch.ListRequest) (watch.Page[*object.Object], error) {
	c.f.mu.Lock()
	c.f.lists++
	c.f.mu.Unlock()
	if c.f.forbid[c.res] {
		return watch.Page[*object.Object]{}, c.forbidden()
	}
	page := watch.Page[*object.Object]{ResourceVersion: "10"}
	for _, obj := range c.f.objects {
		if c.scope.Namespace == "" || obj.Namespace == c.scope.Namespace {
			page.Items = append(page.Items, obj)
		}
	}
	return page, nil
}

func (c *fakeClient) Watch(ctx context.Context, _ watch.WatchRequest) (watch.Stream[*object.Object], error) {
	c.f.watches <- struct{}{}
	return &blockingStream{ctx: ctx, closed: make(chan struct{})}, nil
}

// blockingStream is a watch on which nothing happens.
type blockingStream struct {
	ctx    context.Context
	once   sync.Once
	closed chan struct{}
}

func (s *blockingStream) Next() (watch.WatchEvent[*object.Object], error) {
	select {
	case <-s.ctx.Done():
		return watch.WatchEvent[*object.Object]{}, s.ctx.Err()
	case <-s.closed:
		return watch.WatchEvent[*object.Object]{}, context.Canceled
	}
}

func (s *blockingStream) Close() { s.once.Do(func() { close(s.closed) }) }

func cm(ns, name string) *object.Object {
	return &object.Object{Namespace: ns, Name: name, ResourceVersion: "5"}
}
