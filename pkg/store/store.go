package store

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// Options tune a Store. The zero value is usable.
type Options[T Object] struct {
	// Indexes are kept from the start, by name (see ByIndex); NamespaceIndex
	// is built on its first use.
	Indexes map[string]IndexFunc[T]
	// QueueLimit bounds each subscriber's queue beyond one full state (see
	// Subscription): a queue overflows at len(store)+QueueLimit changes.
	// SubscribeOptions.Limit overrides it per subscription. Zero means the
	// mode's default: max(1024, len(store)) for Coalescing,
	// DefaultOrderedLimit for Ordered.
	QueueLimit int
	// Window is how many of the latest changes the store keeps so that a
	// subscriber may resume after a resourceVersion (SubscribeFrom: a WATCH
	// endpoint's resume). Zero keeps none. The kept changes hold their
	// object versions alive. A relist after the first empties it (as the
	// API server's watch cache does): a resume from before the relist's
	// resourceVersion is then ErrTooOld, and the subscriber lists again.
	Window int
	// ListOrder makes List and Snapshot return objects in the order of the
	// latest list, the server's, rather than in key order: the API server
	// sorts some Tables' rows (FlowSchemas by precedence) and resources it
	// does not keep in etcd (ComponentStatuses, aggregated APIs) list in
	// orders of their own, which kubectl get prints. Objects added since
	// come after the listed ones, in key order. It keeps the list's keys
	// (a key per object): for one-shot commands, not long-lived stores.
	ListOrder bool
}

// Store keeps the current state of one resource.
//
// Apply is its only writer and must be called from one goroutine (a
// watcher's Run). Every other method is safe for any number of concurrent
// readers.
type Store[T Object] struct {
	opts Options[T]

	mu      sync.RWMutex // guards items, indexes and rv; writers hold it to notify
	items   map[Key]T
	indexes *indexes[T]
	rv      string
	synced  chan struct{}
	window  *window[T] // nil unless Options.Window
	listed  []Key      // the latest list's keys, in its order; nil unless Options.ListOrder

	subsMu sync.Mutex // guards subs; taken inside mu, never the other way
	subs   map[*Subscription[T]]struct{}

	// relist is the buffer of a relist in progress; only Apply touches it.
	relist *relistBuffer[T]
}

// New returns an empty, unsynced Store.
func New[T Object](opts Options[T]) *Store[T] {
	return &Store[T]{
		opts:    opts,
		items:   map[Key]T{},
		indexes: newIndexes(opts.Indexes),
		synced:  make(chan struct{}),
		window:  newWindow[T](opts.Window),
		subs:    map[*Subscription[T]]struct{}{},
	}
}

// relistBuffer holds a relist in list order.
type relistBuffer[T Object] struct {
	order []Key
	items map[Key]T
}

// Apply is the store's single writer: it applies one watcher event. It has
// the signature of a watch.Handler and never fails.
func (s *Store[T]) Apply(_ context.Context, ev watch.Event[T]) error {
	switch ev.Type {
	case watch.Init:
		s.relist = s.newRelistBuffer(ev.Size)
	case watch.InitApply:
		s.bufferRelist(ev.Object)
	case watch.InitDone:
		s.swapRelist(ev.ResourceVersion)
	case watch.Apply:
		s.apply(ev.Object, ev.ResourceVersion)
	case watch.Delete:
		s.delete(ev.Object, ev.ResourceVersion)
	case watch.Bookmark:
		s.mu.Lock()
		s.rv = ev.ResourceVersion
		s.mu.Unlock()
	default:
		return fmt.Errorf("store: unknown event type %v", ev.Type)
	}
	return nil
}

// newRelistBuffer sizes the buffer for as many objects as the store holds,
// or as the list brings when it says (size): growing a map of thousands of
// entries would allocate it twice over.
func (s *Store[T]) newRelistBuffer(size int) *relistBuffer[T] {
	n := max(s.Len(), size)
	return &relistBuffer[T]{order: make([]Key, 0, n), items: make(map[Key]T, n)}
}

// bufferRelist adds one listed object to the relist buffer, keeping the
// stored object when it is unchanged so that a relist does not double the
// memory of unchanged objects.
func (s *Store[T]) bufferRelist(obj T) {
	if s.relist == nil { // InitApply without Init: treat as the start of one
		s.relist = s.newRelistBuffer(0)
	}
	k := KeyOf(obj)
	s.mu.RLock()
	old, ok := s.items[k]
	s.mu.RUnlock()
	if ok && old.GetResourceVersion() == obj.GetResourceVersion() {
		obj = old
	}
	if _, dup := s.relist.items[k]; !dup {
		s.relist.order = append(s.relist.order, k)
	}
	s.relist.items[k] = obj
}

// swapRelist makes the buffered relist the state in one step and tells the
// subscribers what changed.
func (s *Store[T]) swapRelist(rv string) {
	buf := s.relist
	s.relist = nil
	if buf == nil {
		buf = &relistBuffer[T]{items: map[Key]T{}}
	}
	s.mu.RLock()
	ix := s.indexes
	s.mu.RUnlock()
	indexes := ix.rebuilt(buf.items) // outside the lock: readers go on
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.indexes != ix { // a reader added the namespace index meanwhile
		indexes = s.indexes.rebuilt(buf.items)
	}
	var changes []Change[T]
	if s.listenedLocked() {
		changes = diff(s.items, buf, s.rv, rv, s.isSynced())
	}
	s.items, s.indexes, s.rv = buf.items, indexes, rv
	if s.opts.ListOrder {
		s.listed = buf.order
	}
	for _, c := range changes {
		s.notifyLocked(c)
	}
	if s.window != nil {
		s.window.restart(rv)
	}
	select {
	case <-s.synced:
	default:
		close(s.synced)
		s.notifyLocked(Change[T]{Type: Synced, ResourceVersion: rv})
	}
}

// listenedLocked says whether a change would reach anyone: a subscriber or
// the window. The caller holds mu, which keeps new subscribers out (they
// register under its read lock). A store nobody listens to (get's, for
// one) is spared the relist's list of changes: a change of about a hundred
// bytes per object, at every object for the first list.
func (s *Store[T]) listenedLocked() bool {
	if s.window != nil {
		return true
	}
	s.subsMu.Lock()
	defer s.subsMu.Unlock()
	return len(s.subs) > 0
}

// diff lists what turns old (the state at resourceVersion was) into the
// relist listed at rv. The first list (!again) is Applied in list order
// (the server's: by name). A relist's changes come in an order whose
// resourceVersions never go back: Deleted first, in key order, at was
// (when each object went is unknown, and every change delivered before
// was at or before was), then Applied in the order of their objects'
// resourceVersions (each changed after was, at or before rv), at rv. See
// Options.Window for why a resume from within them is ErrTooOld all the
// same.
func diff[T Object](old map[Key]T, relist *relistBuffer[T], was, rv string, again bool) []Change[T] {
	var gone []Key
	for k := range old {
		if _, ok := relist.items[k]; !ok {
			gone = append(gone, k)
		}
	}
	slices.SortFunc(gone, CompareKeys)
	size := len(gone)
	if !again {
		size += len(relist.order) // every listed object is Applied
	}
	changes := make([]Change[T], 0, size)
	relistRV := ""
	if again {
		relistRV = rv
	}
	for _, k := range gone {
		changes = append(changes, Change[T]{Type: Deleted, Key: k, Object: old[k], Old: old[k], HasOld: true, ResourceVersion: was, Relist: relistRV})
	}
	deleted := len(changes)
	for _, k := range relist.order {
		obj := relist.items[k]
		prev, had := old[k]
		if had && prev.GetResourceVersion() == obj.GetResourceVersion() {
			continue
		}
		changes = append(changes, Change[T]{Type: Applied, Key: k, Object: obj, Old: prev, HasOld: had, ResourceVersion: rv, Relist: relistRV})
	}
	if again {
		slices.SortStableFunc(changes[deleted:], func(a, b Change[T]) int {
			return CompareRV(a.Object.GetResourceVersion(), b.Object.GetResourceVersion())
		})
	}
	return changes
}

// isSynced says whether the first list was swapped in.
func (s *Store[T]) isSynced() bool {
	select {
	case <-s.synced:
		return true
	default:
		return false
	}
}

func (s *Store[T]) apply(obj T, rv string) {
	k := KeyOf(obj)
	s.mu.Lock()
	defer s.mu.Unlock()
	old, had := s.items[k]
	s.items[k], s.rv = obj, rv
	if had {
		s.indexes.remove(k, old)
	}
	s.indexes.add(k, obj)
	if had && old.GetResourceVersion() == obj.GetResourceVersion() {
		return
	}
	s.notifyLocked(Change[T]{Type: Applied, Key: k, Object: obj, Old: old, HasOld: had, ResourceVersion: rv, At: time.Now()})
}

func (s *Store[T]) delete(obj T, rv string) {
	k := KeyOf(obj)
	s.mu.Lock()
	defer s.mu.Unlock()
	old, had := s.items[k]
	if had {
		s.indexes.remove(k, old)
	}
	delete(s.items, k)
	s.rv = rv
	s.notifyLocked(Change[T]{Type: Deleted, Key: k, Object: obj, Old: old, HasOld: had, ResourceVersion: rv, At: time.Now()})
}

func (s *Store[T]) notifyLocked(c Change[T]) {
	if s.window != nil && !isMarker(c.Type) {
		s.window.add(c)
	}
	n := len(s.items)
	s.subsMu.Lock()
	defer s.subsMu.Unlock()
	for sub := range s.subs {
		sub.push(c, n)
	}
}
