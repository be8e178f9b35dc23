// Package reflectortest is an in-memory API server for the unit tests of
// pkg/reflector's consumers (pkg/controller, the built-in controllers): its
// clients list and watch objects that a test applies and deletes, so that a
// reflector.Set runs against it as against a real server, without one.
//
// It is for tests only: it keeps every change it was told (watches resume
// from any resourceVersion) and knows no selectors but a namespace.
package reflectortest

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/tidwall/sjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// Server holds objects by resource, numbers every change with one
// resourceVersion counter, and serves them to its clients. It is safe for
// concurrent use.
type Server struct {
	mu      sync.Mutex
	rv      int
	objects map[kube.Resource]map[store.Key]*object.Object
	history []change // every change, in resourceVersion order
	forbid  map[kube.Resource]bool
	hold    map[kube.Resource]chan struct{}
	streams map[*stream]struct{}
	lists   int
	watches int
}

type change struct {
	res kube.Resource
	ev  watch.WatchEvent[*object.Object]
	rv  int
}

// NewServer returns a server that holds nothing.
func NewServer() *Server {
	return &Server{
		objects: map[kube.Resource]map[store.Key]*object.Object{},
		forbid:  map[kube.Resource]bool{},
		hold:    map[kube.Resource]chan struct{}{},
		streams: map[*stream]struct{}{},
	}
}

// NewClient is a reflector.SetOptions.NewClient: a client of res in scope.
func (s *Server) NewClient(res kube.Resource, scope kube.Scope) reflector.Client {
	return &client{s: s, res: res, namespace: scope.Namespace, prune: scope.Prune}
}

// Apply creates or replaces the object of res whose JSON is doc (its
// metadata.namespace and metadata.name say which) with a new
// resourceVersion, and tells the watches. It returns the stored object.
func (s *Server) Apply(res kube.Resource, doc string) (*object.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rv++
	doc, err := sjson.Set(doc, "metadata.resourceVersion", strconv.Itoa(s.rv))
	if err != nil {
		return nil, fmt.Errorf("setting the resourceVersion: %w", err)
	}
	obj, err := object.Decode([]byte(doc), object.Prune{})
	if err != nil {
		return nil, err
	}
	objs := s.objects[res]
	if objs == nil {
		objs = map[store.Key]*object.Object{}
		s.objects[res] = objs
	}
	typ := watch.WatchAdded
	if _, ok := objs[store.KeyOf(obj)]; ok {
		typ = watch.WatchModified
	}
	objs[store.KeyOf(obj)] = obj
	s.publishLocked(res, typ, obj)
	return obj, nil
}

// Delete deletes the object of res under k, if there is one, and tells the
// watches.
func (s *Server) Delete(res kube.Resource, k store.Key) {
	s.mu.Lock()
	defer s.mu.Unlock()
	obj, ok := s.objects[res][k]
	if !ok {
		return
	}
	delete(s.objects[res], k)
	s.rv++
	s.publishLocked(res, watch.WatchDeleted, obj)
}

// Forbid makes the next lists of res fail with 403 Forbidden, which stops
// their reflectors for good.
func (s *Server) Forbid(res kube.Resource) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.forbid[res] = true
}

// Hold makes the lists of res wait (or fail when their ctx ends) until
// release is called.
func (s *Server) Hold(res kube.Resource) (release func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := make(chan struct{})
	s.hold[res] = ch
	return sync.OnceFunc(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.hold, res)
		close(ch)
	})
}

// Counts are the LISTs and WATCHes served so far.
func (s *Server) Counts() (lists, watches int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lists, s.watches
}

func (s *Server) publishLocked(res kube.Resource, typ watch.WatchEventType, obj *object.Object) {
	c := change{res: res, rv: s.rv, ev: watch.WatchEvent[*object.Object]{Type: typ, Object: obj, ResourceVersion: strconv.Itoa(s.rv)}}
	s.history = append(s.history, c)
	for st := range s.streams {
		st.offer(c)
	}
}

func (s *Server) list(ctx context.Context, res kube.Resource, namespace string) (watch.Page[*object.Object], error) {
	s.mu.Lock()
	held := s.hold[res]
	s.mu.Unlock()
	if held != nil {
		select {
		case <-held:
		case <-ctx.Done():
			return watch.Page[*object.Object]{}, ctx.Err()
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lists++
	if s.forbid[res] {
		return watch.Page[*object.Object]{}, apierrors.NewForbidden(res.GVR.GroupResource(), "", nil)
	}
	page := watch.Page[*object.Object]{ResourceVersion: strconv.Itoa(s.rv)}
	for k, obj := range s.objects[res] {
		if namespace == "" || k.Namespace == namespace {
			page.Items = append(page.Items, obj)
		}
	}
	return page, nil
}

// watch opens a stream of res's changes after resourceVersion rv.
func (s *Server) watch(ctx context.Context, res kube.Resource, namespace, rv string) (*stream, error) {
	from, err := strconv.Atoi(rv)
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("resourceVersion %q", rv))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watches++
	st := &stream{s: s, ctx: ctx, res: res, namespace: namespace, wake: make(chan struct{}, 1), closed: make(chan struct{})}
	for _, c := range s.history {
		if c.rv > from {
			st.offer(c)
		}
	}
	s.streams[st] = struct{}{}
	return st, nil
}

type client struct {
	s         *Server
	res       kube.Resource
	namespace string
	prune     object.Prune // applied to what it serves, as kube.Client's decoder does
}

func (c *client) Resource() kube.Resource  { return c.res }
func (c *client) Reuse(object.Known)       {}
func (c *client) Columns() []object.Column { return nil }

func (c *client) List(ctx context.Context, _ watch.ListRequest) (watch.Page[*object.Object], error) {
	page, err := c.s.list(ctx, c.res, c.namespace)
	if err != nil {
		return page, err
	}
	for i, o := range page.Items {
		if page.Items[i], err = pruned(o, c.prune); err != nil {
			return page, err
		}
	}
	return page, nil
}

func (c *client) Watch(ctx context.Context, req watch.WatchRequest) (watch.Stream[*object.Object], error) {
	st, err := c.s.watch(ctx, c.res, c.namespace, req.ResourceVersion)
	if err != nil {
		return nil, err
	}
	st.prune = c.prune
	return st, nil
}

// pruned is o decoded again with p, or o itself when p prunes nothing.
func pruned(o *object.Object, p object.Prune) (*object.Object, error) {
	if o == nil || p == (object.Prune{}) {
		return o, nil
	}
	return object.Decode(o.JSON(), p)
}

// stream is one open watch: the changes of its resource and namespace,
// queued without bound.
type stream struct {
	s         *Server
	ctx       context.Context
	res       kube.Resource
	namespace string
	prune     object.Prune
	wake      chan struct{}
	closed    chan struct{}
	once      sync.Once

	mu     sync.Mutex
	events []watch.WatchEvent[*object.Object]
}

// offer queues c if it is the stream's; the server's lock is held.
func (st *stream) offer(c change) {
	if c.res != st.res || (st.namespace != "" && c.ev.Object.Namespace != st.namespace) {
		return
	}
	st.mu.Lock()
	st.events = append(st.events, c.ev)
	st.mu.Unlock()
	select {
	case st.wake <- struct{}{}:
	default:
	}
}

func (st *stream) Next() (watch.WatchEvent[*object.Object], error) {
	for {
		st.mu.Lock()
		if len(st.events) > 0 {
			ev := st.events[0]
			st.events = st.events[1:]
			st.mu.Unlock()
			var err error
			ev.Object, err = pruned(ev.Object, st.prune)
			return ev, err
		}
		st.mu.Unlock()
		select {
		case <-st.wake:
		case <-st.ctx.Done():
			return watch.WatchEvent[*object.Object]{}, st.ctx.Err()
		case <-st.closed:
			return watch.WatchEvent[*object.Object]{}, context.Canceled
		}
	}
}

func (st *stream) Close() {
	st.once.Do(func() {
		close(st.closed)
		st.s.mu.Lock()
		delete(st.s.streams, st)
		st.s.mu.Unlock()
	})
}
