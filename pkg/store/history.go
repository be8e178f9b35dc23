package store

import (
	"context"
	"errors"
	"fmt"
)

// Errors of SubscribeFrom, as a WATCH endpoint maps them: 410 Gone for
// ErrTooOld, a retry for ErrTooLarge and ErrNotSynced, 400 for
// ErrInvalidResourceVersion.
var (
	// ErrTooOld: the history no longer holds every change after the
	// resourceVersion asked for; the subscriber must start from a list.
	ErrTooOld = errors.New("too old resource version")
	// ErrTooLarge: the resourceVersion asked for is newer than the store's.
	ErrTooLarge = errors.New("too large resource version")
	// ErrNotSynced: the store has no state yet to resume from.
	ErrNotSynced = errors.New("store not synced")
	// ErrInvalidResourceVersion: the resourceVersion is not a number.
	ErrInvalidResourceVersion = errors.New("invalid resource version")
)

// history is the window of the store's most recent changes that
// SubscribeFrom replays: a ring of the last Options.History Applied and
// Deleted changes, in the order the store applied them. Every change after
// base is in the ring. The store's lock guards it.
//
// Resource versions are compared as the numbers the API server gives (as
// its own watch cache does); a change whose resourceVersion is not a
// number makes the history hold nothing from there on.
type history[T Object] struct {
	ring  []Change[T] // capacity Options.History
	start int         // index of the oldest change in ring
	size  int
	base  uint64 // every change with a resourceVersion above base is held
	valid bool   // base is set: the store synced and every rv parsed
}

func newHistory[T Object](n int) *history[T] {
	if n <= 0 {
		return nil
	}
	return &history[T]{ring: make([]Change[T], n)}
}

// restart empties the window and starts it at a list at rv: the first
// sync and every relist. A relist's changes are not kept: a resume from
// before rv is ErrTooOld, as the API server's watch cache empties its
// buffer on a relist (watchCache.Replace) and answers 410 to a resume
// from before it. Its changes carry resourceVersions that are not their
// own (was, rv: see diff), so a resume from one of them could not tell
// which of the changes that share it the subscriber saw.
func (h *history[T]) restart(rv string) {
	base, ok := ParseRV(rv)
	h.base, h.valid = base, ok
	clear(h.ring)
	h.start, h.size = 0, 0
}

// add records c, evicting the oldest change when the ring is full.
func (h *history[T]) add(c Change[T]) {
	if !h.valid {
		return
	}
	if _, ok := ParseRV(c.ResourceVersion); !ok {
		h.valid = false
		clear(h.ring)
		h.size = 0
		return
	}
	n := len(h.ring)
	if h.size == n {
		evicted := h.ring[h.start]
		h.base, _ = ParseRV(evicted.ResourceVersion)
		h.ring[h.start] = c
		h.start = (h.start + 1) % n
		return
	}
	h.ring[(h.start+h.size)%n] = c
	h.size++
}

// since returns the changes after from, oldest first, or ErrTooOld.
func (h *history[T]) since(from uint64) ([]Change[T], error) {
	if !h.valid || from < h.base {
		return nil, ErrTooOld
	}
	var out []Change[T]
	for i := range h.size {
		c := h.ring[(h.start+i)%len(h.ring)]
		if rv, _ := ParseRV(c.ResourceVersion); rv > from {
			out = append(out, c)
		}
	}
	return out, nil
}

// SubscribeFrom starts an Ordered subscription that resumes after
// resourceVersion rv: it is queued every change the store applied after rv
// (from its history, see Options.History), then every change from now on,
// as an Ordered subscription (opts.Mode is ignored). It queues no initial
// state and no Synced. It fails with ErrTooOld when the history no longer
// holds every change after rv (or the store keeps none), ErrTooLarge when
// rv is newer than the store, ErrNotSynced before the first sync, and
// ErrInvalidResourceVersion when rv is not a number. The caller closes the
// subscription or ends ctx.
func (s *Store[T]) SubscribeFrom(ctx context.Context, rv string, opts SubscribeOptions) (*Subscription[T], error) {
	from, ok := ParseRV(rv)
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrInvalidResourceVersion, rv)
	}
	opts.Mode = Ordered
	sub := s.newSubscription(opts)
	s.mu.RLock()
	defer s.mu.RUnlock()
	select {
	case <-s.synced:
	default:
		return nil, ErrNotSynced
	}
	if cur, ok := ParseRV(s.rv); ok && from > cur {
		return nil, fmt.Errorf("%w: %s is newer than %s", ErrTooLarge, rv, s.rv)
	}
	if s.history == nil {
		return nil, fmt.Errorf("%w: %s (the store keeps no history)", ErrTooOld, rv)
	}
	changes, err := s.history.since(from)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", err, rv)
	}
	sub.mu.Lock()
	for _, c := range changes {
		if sub.keep == nil || sub.keep(c.Key) {
			sub.queue.add(c, -1)
		}
	}
	if sub.queue.len() > 0 {
		sub.wake()
	}
	sub.mu.Unlock()
	s.register(ctx, sub)
	return sub, nil
}
