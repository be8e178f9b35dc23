package store

import (
	"context"
	"errors"
	"sync"
)

// ErrClosed is returned by Next after Close.
var ErrClosed = errors.New("subscription closed")

// Subscription is one subscriber's view of a Store's changes.
//
// Queue policy. The store never waits for a subscriber. Each subscription
// queues at most one pending change per object: a newer change to an object
// that is still queued replaces it in place (latest wins) and keeps the Old
// version the subscriber saw last, so a slow reader sees fewer, never stale,
// changes. Deletions are queued like any change. If the queue still grows
// past the store's QueueLimit (deletions of many distinct objects piling up),
// it is dropped and the subscriber receives Resync, the whole current state
// as Applied, then Synced. Memory per subscription is therefore bounded by
// one full state plus QueueLimit entries.
type Subscription[T Object] struct {
	store  *Store[T]
	signal chan struct{} // holds a token while changes may be pending

	mu      sync.Mutex
	order   []entry // pending entries in arrival order, from head on
	head    int
	pending map[Key]Change[T]
	resync  bool
	closed  bool
	stop    func() bool // releases the ctx registration
}

// entry is a place in the queue: an object's pending change, or a marker.
type entry struct {
	key    Key
	marker ChangeType // Synced or Resync; 0 for an object's change
}

// SubscribeOptions tune a subscription. The zero value is usable.
type SubscribeOptions struct {
	// Wake, if set, receives a token (never blocking) whenever the
	// subscription may have changes. Several subscriptions may share one
	// channel (buffered, capacity 1 or more) so that one goroutine waits for
	// any of them: it then reads every one of them with TryNext, not Next.
	Wake chan struct{}
}

// Subscribe starts a subscription. If the store has synced, the current
// state is queued first (as Applied, then Synced); otherwise the first sync
// delivers it. The subscription ends when ctx ends or Close is called.
func (s *Store[T]) Subscribe(ctx context.Context, opts SubscribeOptions) *Subscription[T] {
	signal := opts.Wake
	if signal == nil {
		signal = make(chan struct{}, 1)
	}
	sub := &Subscription[T]{store: s, signal: signal, pending: map[Key]Change[T]{}}
	// The read lock keeps the writer (who notifies under the write lock) out
	// between the snapshot and the registration, and lets readers in.
	s.mu.RLock()
	select {
	case <-s.synced:
		sub.mu.Lock()
		sub.fillLocked(s)
		sub.mu.Unlock()
	default:
	}
	s.subsMu.Lock()
	s.subs[sub] = struct{}{}
	s.subsMu.Unlock()
	s.mu.RUnlock()
	stop := context.AfterFunc(ctx, sub.Close)
	sub.mu.Lock()
	sub.stop = stop
	sub.mu.Unlock()
	return sub
}

// fillLocked queues the whole state of s; the caller holds both locks.
func (sub *Subscription[T]) fillLocked(s *Store[T]) {
	for _, obj := range s.listLocked(nil) {
		sub.enqueueLocked(Change[T]{Type: Applied, Key: KeyOf(obj), Object: obj})
	}
	sub.enqueueLocked(Change[T]{Type: Synced})
}

func (sub *Subscription[T]) enqueueLocked(c Change[T]) {
	if sub.head > 0 && sub.head >= len(sub.order)/2 { // reuse the consumed half
		n := copy(sub.order, sub.order[sub.head:])
		sub.order, sub.head = sub.order[:n], 0
	}
	if c.Type == Synced || c.Type == Resync {
		sub.order = append(sub.order, entry{marker: c.Type})
	} else {
		sub.order = append(sub.order, entry{key: c.Key})
		sub.pending[c.Key] = c
	}
	sub.wake()
}

func (sub *Subscription[T]) wake() {
	select {
	case sub.signal <- struct{}{}:
	default:
	}
}

// push queues c for the subscriber. The store calls it with its lock held;
// it never blocks.
func (sub *Subscription[T]) push(c Change[T], limit int) {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	if sub.closed || sub.resync {
		return // a pending resync delivers the then current state
	}
	if prev, ok := sub.pending[c.Key]; ok && c.Type != Synced {
		c.Old, c.HasOld = prev.Old, prev.HasOld
		sub.pending[c.Key] = c
		return
	}
	if len(sub.pending) >= limit && c.Type != Synced {
		sub.resync, sub.order, sub.head = true, nil, 0
		clear(sub.pending)
		sub.wake()
		return
	}
	sub.enqueueLocked(c)
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
	for sub.head < len(sub.order) {
		e := sub.order[sub.head]
		sub.order[sub.head] = entry{}
		sub.head++
		if e.marker != 0 {
			return Change[T]{Type: e.marker}, true, nil
		}
		if c, ok := sub.pending[e.key]; ok {
			delete(sub.pending, e.key)
			return c, true, nil
		}
	}
	sub.order, sub.head = sub.order[:0], 0
	return Change[T]{}, false, nil
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
	sub.enqueueLocked(Change[T]{Type: Resync})
	sub.fillLocked(s)
}

// Close ends the subscription and releases its queue. It is idempotent.
func (sub *Subscription[T]) Close() {
	sub.mu.Lock()
	if sub.closed {
		sub.mu.Unlock()
		return
	}
	sub.closed, sub.order, sub.pending = true, nil, nil
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
