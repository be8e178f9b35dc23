package reflector

import (
	"context"
	"slices"
	"strings"
	"sync"

	"k8s.io/client-go/rest"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// SetOptions configure a Set.
type SetOptions struct {
	// NewClient makes the client of a resource in a scope; required.
	// RESTClients gives pkg/kube's.
	NewClient func(kube.Resource, kube.Scope) Client
	// Watch are every reflector's watcher options; nil is DefaultWatchOptions.
	Watch *watch.Options
	// Hooks are every reflector's.
	Hooks Hooks
	// Scope, if set, rewrites the scope of every Acquire before it is
	// looked up: a daemon that serves Tables from packed objects makes its
	// controllers' handles ask for the same (kube.Shape{Table: true, Pack:
	// true}), so that they share its reflectors, one watch per kind.
	Scope func(kube.Scope) kube.Scope
	// Window is how many of its latest changes each reflector's store
	// keeps, so that a consumer may resume after a resourceVersion
	// (Handle.SubscribeFrom: a WATCH endpoint's resume); zero keeps none.
	Window int
	// Seed, if set, is asked what was recorded of each reflector's
	// resource and scope when it starts: a reflector that gets a state
	// starts from it and resumes the watch from its resourceVersion,
	// instead of listing (a daemon restarted warm from its history; see
	// watch.Watcher.WithSeed for what a server that no longer holds
	// that resourceVersion makes it do).
	Seed Seeder
	// ListOrder makes each reflector's store list in the order of its
	// latest list, the server's (store.Options.ListOrder): what a one-shot
	// get prints.
	ListOrder bool
}

// DefaultWatchOptions are a Set's watcher options unless SetOptions.Watch
// says otherwise: one LIST (watch.ListWhole, the fastest list mode make bench
// measures), then a watch, every transient error retried.
func DefaultWatchOptions() watch.Options { return watch.Options{List: watch.ListWhole} }

// RESTClients makes pkg/kube clients that share rc. A client answered 404
// asks rediscover, unless nil, which version of its resource the server
// serves now (see kube.Client.Rediscover): a CRD may come back serving
// another version.
func RESTClients(rc rest.Interface, rediscover kube.Rediscover) func(kube.Resource, kube.Scope) Client {
	return func(res kube.Resource, scope kube.Scope) Client {
		c := kube.NewClient(rc, res, scope)
		if rediscover != nil {
			c.Rediscover(rediscover)
		}
		return c
	}
}

// Set shares reflectors within a process: one per resource and scope,
// started on the first Acquire, stopped when its last Handle is released.
// It is safe for concurrent use.
type Set struct {
	opts SetOptions

	mu       sync.Mutex
	running  map[key]*entry        // the reflectors that run and serve new handles
	expected map[key]expectedPrune // by bareKey: see Expect
}

// NewSet returns an empty Set.
func NewSet(opts SetOptions) *Set {
	w := DefaultWatchOptions()
	if opts.Watch != nil {
		w = *opts.Watch // a copy: the caller's may change
	}
	opts.Watch = &w
	return &Set{opts: opts, running: map[key]*entry{}, expected: map[key]expectedPrune{}}
}

// key is what makes two reflectors the same: the resource and every field
// of the scope that changes what the client asks for or keeps (Table and
// MetadataOnly change the request, Prune and Pack the objects, Names what is kept).
type key struct {
	res                 kube.Resource
	namespace           string
	label, field, names string
	table, meta         bool
	pack, packLists     bool
	prune               object.Prune
}

func keyOf(res kube.Resource, scope kube.Scope) key {
	k := key{
		res: res, namespace: scope.Namespace, label: scope.LabelSelector, field: scope.FieldSelector,
		names: strings.Join(scope.Names, "\x00"), table: scope.Table, meta: scope.MetadataOnly, pack: scope.Pack, packLists: scope.PackLists, prune: scope.Prune,
	}
	if !res.Namespaced {
		k.namespace = "" // a cluster-scoped resource is read whole, whatever the namespace
	}
	return k
}

// covers says whether a reflector of key a can serve a consumer of key b,
// b's reads and subscriptions narrowed to its namespace: a is b, or a has
// all namespaces where b has one, and they agree on everything else, with no
// Names filter in either (a Names filter is a list of exceptions, and a
// field selector may name one object: they differ, so they are not
// covered). A cluster-scoped resource's keys have no namespace (keyOf).
func covers(a, b key) bool {
	if a == b {
		return true
	}
	return a.namespace == "" && a.names == "" && b.names == "" && withNamespace(a, b.namespace) == b
}

func withNamespace(k key, ns string) key { k.namespace = ns; return k }

// entry is one running reflector and its handles.
type entry struct {
	key    key
	r      *Reflector
	users  int // guarded by Set.mu
	cancel context.CancelFunc
	done   chan struct{} // closed when Run returned
	err    error         // why Run returned; set before done is closed
}

// expectedPrune is what the consumers that told Expect of one resource and
// scope (but for Prune) asked to prune, and what all of them prune.
type expectedPrune struct {
	asked map[object.Prune]bool
	meet  object.Prune
}

// Expect tells the Set that a consumer will Acquire res in scope and takes
// objects pruned less than scope.Prune says (a controller's input reads the
// fields it needs and skips the others). An Acquire whose scope was
// expected gets a reflector that prunes only what every expected consumer
// of that resource and scope (but for Prune and the namespace) prunes: the
// controllers of one process, built before any of them runs, share one
// watch per kind even when one of them would keep less, and one of a
// namespace may still read another's reflector of all namespaces (covers).
func (s *Set) Expect(res kube.Resource, scope kube.Scope) {
	if s.opts.Scope != nil {
		scope = s.opts.Scope(scope)
	}
	k := bareKey(keyOf(res, scope))
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.expected[k]
	if !ok {
		e = expectedPrune{asked: map[object.Prune]bool{}, meet: scope.Prune}
	}
	e.asked[scope.Prune] = true
	e.meet = e.meet.Meet(scope.Prune)
	s.expected[k] = e
}

// bareKey is k without what Expect's consumers may differ in.
func bareKey(k key) key {
	k.prune, k.namespace = object.Prune{}, ""
	return k
}

// Acquire returns a Handle on the reflector of res in scope: the running
// one of that scope or of a scope that covers it (see Covers), or a new one
// started now (SetOptions.Scope rewrites scope first; an expected scope
// prunes what Expect says). The Handle must be released. A reflector that
// stopped for good (Handle.Err) serves no new Acquire: the next one starts
// another.
func (s *Set) Acquire(res kube.Resource, scope kube.Scope) *Handle {
	if s.opts.Scope != nil {
		scope = s.opts.Scope(scope)
	}
	k := keyOf(res, scope)
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.expected[bareKey(k)]; ok && e.asked[scope.Prune] {
		scope.Prune = e.meet
		k = keyOf(res, scope)
	}
	e := s.running[k]
	narrow := ""
	if e == nil && k.namespace != "" {
		if all := s.running[withNamespace(k, "")]; all != nil && covers(all.key, k) {
			e, narrow = all, k.namespace
		}
	}
	if e == nil {
		e = s.start(k, res, scope)
	}
	e.users++
	return &Handle{set: s, e: e, namespace: narrow}
}

// start runs a new reflector; the caller holds s.mu.
func (s *Set) start(k key, res kube.Resource, scope kube.Scope) *entry {
	ctx, cancel := context.WithCancel(context.Background())
	st := store.Options[*object.Object]{Window: s.opts.Window, ListOrder: s.opts.ListOrder}
	e := &entry{key: k, r: NewWithStore(s.opts.NewClient(res, scope), st), cancel: cancel, done: make(chan struct{})}
	s.running[k] = e
	go func() {
		err := e.r.run(ctx, *s.opts.Watch, s.opts.Hooks, e.r.seedFrom(s.opts.Seed, scope, func(err error) {
			if s.opts.Hooks.OnError != nil {
				s.opts.Hooks.OnError(res, err, 0)
			}
		}))
		s.mu.Lock()
		if s.running[k] == e {
			delete(s.running, k) // stopped for good: serve no new handle
		}
		e.err = err
		s.mu.Unlock()
		close(e.done)
	}()
	return e
}

// release drops one user of e and stops it after the last one.
func (s *Set) release(e *entry) {
	s.mu.Lock()
	e.users--
	last := e.users == 0
	if last && s.running[e.key] == e {
		delete(s.running, e.key)
	}
	s.mu.Unlock()
	if last {
		e.cancel()
		<-e.done
	}
}

// Len is the number of reflectors that serve new handles.
func (s *Set) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.running)
}

// WaitForSync waits until every handle's store has its first list, or its
// reflector stopped for good, or ctx ends. It returns nil when every store
// synced, else ctx's error or the errors of the handles that stopped (see
// Handle.Err), joined.
func WaitForSync(ctx context.Context, handles ...*Handle) error {
	var errs []error
	for _, h := range handles {
		select {
		case <-h.Synced():
			continue
		case <-h.Done():
		case <-ctx.Done():
			return ctx.Err()
		}
		if err := h.Err(); err != nil && !slices.ContainsFunc(errs, func(e error) bool { return e == err }) {
			errs = append(errs, err)
		}
	}
	return joinErrors(errs)
}
