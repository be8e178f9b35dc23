package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// ErrClosed is returned by Next after Close.
var ErrClosed = errors.New("subscription closed")

// Subscription is one subscriber's view of a Store's changes, queued in the
// Mode chosen at Subscribe.
//
// Both modes. The store never waits for a subscriber, and a slow subscriber
// never slows another: the store queues each change for each subscriber in
// constant amortized time, under that subscriber's own lock, and moves on.
// A subscriber that joins after the first sync is queued the whole current
// state first (Applied without Old, in key order, then Synced); one that
// joins earlier receives it from the first sync. Every change carries the
// store's resourceVersion at that change (Change.ResourceVersion).
//
// Bound. A queue holds at most one full state plus a bound of changes (the
// bound counts beyond the store's size, so that queuing the whole state for
// a join or a resync never overflows by itself). The bound is
// SubscribeOptions.Limit if set, else the store's Options.QueueLimit if
// set, else the mode's default below. A change that would take the queue
// past it drops the whole queue instead, and the subscriber then receives
// Resync, the whole current state as Applied without Old, then Synced, and
// every change from there on. Memory per subscription is therefore bounded
// by one full state plus the bound.
//
// Coalescing (the default, for level-based controllers). At most one change
// per object is pending: a newer change to an object that is still queued
// replaces it in place (latest wins, in the slot of the object's first
// pending change) and keeps the Old version the subscriber saw last, so a
// slow reader sees fewer, never stale, changes, but not every version and
// not in resourceVersion order across objects. Deletions are queued like
// any change, so only deletions of many distinct objects can reach the
// bound. Default bound: max(1024, len(store)).
//
// Ordered (for streams that are audited or resumed, such as a printed watch
// or a WATCH endpoint). Every change is delivered, in the exact order the
// store applied it: live applies and deletes, and the changes a relist's
// swap produces (Deleted in key order at the resourceVersion before the
// relist, then Applied in the order of their objects' resourceVersions at
// the relist's: resourceVersions never go back). Old is the object's version just
// before that change, so the changes of one object chain without a gap.
// Default bound: DefaultOrderedLimit changes. A queued change keeps its
// object versions alive after the store has replaced them, so a full queue
// costs the bound times a Change plus the versions only it holds. A Resync
// breaks the sequence: a reader that must pass on every change ends its
// stream there (a WATCH endpoint closes the client's watch, which then
// relists), one that shows changes compares the state with what it knows.
type Subscription[T Object] struct {
	store  *Store[T]
	signal chan struct{}  // holds a token while changes may be pending
	limit  int            // changes beyond one full state; 0: the coalescing default
	keep   func(Key) bool // SubscribeOptions.Keep; nil keeps every object

	mu     sync.Mutex
	queue  queue[T]
	resync bool        // the queue overflowed; the next read queues the state
	closed bool        // Close was called; queue is empty for good
	stop   func() bool // releases the ctx registration
}

// Mode is how a Subscription queues changes; see Subscription for the
// contract of each. Values other than these two are Coalescing.
type Mode uint8

const (
	// Coalescing delivers the latest version of each changed object: the
	// mode of level-based controllers.
	Coalescing Mode = iota
	// Ordered delivers every change in the order the store applied it: the
	// mode of event streams.
	Ordered
)

func (m Mode) String() string {
	switch m {
	case Coalescing:
		return "Coalescing"
	case Ordered:
		return "Ordered"
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// DefaultOrderedLimit is the bound of an Ordered subscription's queue, in
// changes beyond one full state, unless SubscribeOptions.Limit or the
// store's Options.QueueLimit sets another.
const DefaultOrderedLimit = 8192

// SubscribeOptions tune a subscription. The zero value is usable: a
// Coalescing subscription with its own wake channel.
type SubscribeOptions struct {
	// Mode chooses how changes are queued: Coalescing (the default) or
	// Ordered.
	Mode Mode
	// Limit, if positive, bounds this subscription's queue, in changes
	// beyond one full state, overriding the store's Options.QueueLimit and
	// the mode's default (see Subscription).
	Limit int
	// Keep, if set, narrows the subscription to the objects whose key it
	// accepts (a consumer of one namespace of a store that holds all of
	// them): the others are neither queued nor counted. It must depend on
	// the key alone, be fast and never block: the store calls it with its
	// lock held. Synced and Resync are always delivered.
	Keep func(Key) bool
	// Wake, if set, receives a token (never blocking) whenever the
	// subscription may have changes. Several subscriptions may share one
	// channel (buffered, capacity 1 or more) so that one goroutine waits for
	// any of them: it then reads every one of them with TryNext, not Next.
	Wake chan struct{}
	// NeedOld (SubscribeFrom) fails with ErrTooOld a resume that would
	// replay a change with OldUnknown: a subscriber that must tell whether
	// the object's earlier version mattered to it (a selector's match).
	NeedOld bool
}

// Subscribe starts a subscription. If the store has synced, the current
// state is queued first (as Applied, then Synced); otherwise the first sync
// delivers it. The subscription ends when ctx ends or Close is called.
func (s *Store[T]) Subscribe(ctx context.Context, opts SubscribeOptions) *Subscription[T] {
	sub := s.newSubscription(opts)
	// The read lock keeps the writer (who notifies under the write lock) out
	// between the snapshot and the registration, and lets readers in.
	s.mu.RLock()
	defer s.mu.RUnlock()
	select {
	case <-s.synced:
		sub.mu.Lock()
		sub.fillLocked(s)
		sub.mu.Unlock()
	default:
	}
	s.register(ctx, sub)
	return sub
}

// newSubscription makes a subscription of s, not yet registered.
func (s *Store[T]) newSubscription(opts SubscribeOptions) *Subscription[T] {
	sub := &Subscription[T]{store: s, signal: opts.Wake, limit: opts.Limit, keep: opts.Keep}
	if sub.signal == nil {
		sub.signal = make(chan struct{}, 1)
	}
	if sub.limit <= 0 {
		sub.limit = s.opts.QueueLimit
	}
	switch opts.Mode {
	case Ordered:
		sub.queue = &orderedQueue[T]{}
		if sub.limit <= 0 {
			sub.limit = DefaultOrderedLimit
		}
	default: // Coalescing
		sub.queue = newCoalescingQueue[T]()
	}
	return sub
}

// register makes sub receive the store's changes until ctx ends or it is
// closed; the caller holds s.mu (read), so no change slips in between.
func (s *Store[T]) register(ctx context.Context, sub *Subscription[T]) {
	s.subsMu.Lock()
	s.subs[sub] = struct{}{}
	s.subsMu.Unlock()
	stop := context.AfterFunc(ctx, sub.Close)
	sub.mu.Lock()
	sub.stop = stop
	sub.mu.Unlock()
}

// fillLocked queues the whole state of s; the caller holds both locks.
func (sub *Subscription[T]) fillLocked(s *Store[T]) {
	var keep func(T) bool
	if sub.keep != nil {
		keep = func(obj T) bool { return sub.keep(KeyOf(obj)) }
	}
	for _, obj := range s.listLocked(keep) {
		sub.queue.add(Change[T]{Type: Applied, Key: KeyOf(obj), Object: obj, ResourceVersion: s.rv}, -1)
	}
	sub.queue.add(Change[T]{Type: Synced, ResourceVersion: s.rv}, -1)
	sub.wake()
}

// bound is the most changes the queue may hold while the store holds n
// objects.
func (sub *Subscription[T]) bound(n int) int {
	if sub.limit > 0 {
		return n + sub.limit
	}
	return n + max(1024, n)
}

func (sub *Subscription[T]) wake() {
	select {
	case sub.signal <- struct{}{}:
	default:
	}
}

// push queues c for the subscriber while the store holds n objects. The
// store calls it with its lock held; it never blocks.
func (sub *Subscription[T]) push(c Change[T], n int) {
	if sub.keep != nil && (c.Type == Applied || c.Type == Deleted) && !sub.keep(c.Key) {
		return
	}
	sub.mu.Lock()
	defer sub.mu.Unlock()
	if sub.closed || sub.resync {
		return // a pending resync delivers the then current state
	}
	if !sub.queue.add(c, sub.bound(n)) {
		sub.resync = true
		sub.queue.drop()
	}
	sub.wake()
}

// Next returns the next change, blocking until there is one. It returns
// ErrClosed after Close and ctx's error when ctx ends first.
func (sub *Subscription[T]) Next(ctx context.Context) (Change[T], error) {
	for {
		c, ok, err := sub.pop()
		if ok || err != nil {
			return c, err
		}
		select {
		case <-sub.signal:
		case <-ctx.Done():
			return Change[T]{}, ctx.Err()
		}
	}
}

// TryNext returns the next change if one is queued, without blocking; ok is
// false when none is. It returns ErrClosed after Close.
func (sub *Subscription[T]) TryNext() (c Change[T], ok bool, err error) {
	return sub.pop()
}

func (sub *Subscription[T]) pop() (Change[T], bool, error) {
	sub.mu.Lock()
	if sub.resync {
		sub.mu.Unlock()
		sub.startResync()
		sub.mu.Lock()
	}
	defer sub.mu.Unlock()
	if sub.closed {
		return Change[T]{}, false, ErrClosed
	}
	c, ok := sub.queue.next()
	return c, ok, nil
}

// startResync replaces the dropped queue by the store's current state.
func (sub *Subscription[T]) startResync() {
	s := sub.store
	s.mu.RLock()
	defer s.mu.RUnlock()
	sub.mu.Lock()
	defer sub.mu.Unlock()
	if !sub.resync || sub.closed {
		return
	}
	sub.resync = false
	sub.queue.add(Change[T]{Type: Resync, ResourceVersion: s.rv}, -1)
	sub.fillLocked(s)
}

// Close ends the subscription and releases its queue. It is idempotent.
func (sub *Subscription[T]) Close() {
	sub.mu.Lock()
	if sub.closed {
		sub.mu.Unlock()
		return
	}
	sub.closed = true
	sub.queue.drop()
	stop := sub.stop
	sub.mu.Unlock()
	if stop != nil {
		stop()
	}
	sub.wake()
	s := sub.store
	s.subsMu.Lock()
	delete(s.subs, sub)
	s.subsMu.Unlock()
}
