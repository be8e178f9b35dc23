package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
)

// Errors of SubscribeFrom, as a WATCH endpoint maps them: 410 Gone for
// ErrTooOld, a retry for ErrTooLarge and ErrNotSynced, 400 for
// ErrInvalidResourceVersion.
var (
	// ErrTooOld: the window no longer holds every change after the
	// resourceVersion asked for; the subscriber must start from a list.
	// The error is a *TooOldError, which says what the window holds.
	ErrTooOld = errors.New("too old resource version")
	// ErrTooLarge: the resourceVersion asked for is newer than the store's.
	ErrTooLarge = errors.New("too large resource version")
	// ErrNotSynced: the store has no state yet to resume from.
	ErrNotSynced = errors.New("store not synced")
	// ErrInvalidResourceVersion: the resourceVersion is not a number.
	ErrInvalidResourceVersion = errors.New("invalid resource version")
)

// TooOldError is ErrTooOld for resourceVersion RV: the window holds
// every change after Oldest (the oldest resourceVersion a subscriber may
// resume from), or nothing when Oldest is "". It reads as the API
// server's 410: "too old resource version: RV (Oldest)".
type TooOldError struct {
	RV, Oldest string
}

func (e *TooOldError) Error() string {
	if e.Oldest == "" {
		// These words are kept as they were (a caller may print them): "history"
		// here is the window.
		return fmt.Sprintf("%v: %s (the store keeps no history)", ErrTooOld, e.RV)
	}
	return fmt.Sprintf("%v: %s (%s)", ErrTooOld, e.RV, e.Oldest)
}

func (e *TooOldError) Is(target error) bool { return target == ErrTooOld }

// window is the store's memory of its latest changes, which SubscribeFrom
// replays and StateAt undoes: a ring of at most Options.Window Applied and
// Deleted changes, in the order the store applied them (resourceVersion
// order). Every change after base is in the ring, and the store's state
// at base is known (a list's, or what undoing the ring gives), so that
// the state at any resourceVersion from base on can be computed back from
// the current one. The store's lock guards it.
//
// Resource versions are compared as the numbers the API server gives (as
// its own watch cache does); a change whose resourceVersion is not a
// number makes the window hold nothing from there on.
type window[T Object] struct {
	ring  []windowEntry[T] // capacity Options.Window
	start int              // index of the oldest change in ring
	size  int
	base  uint64 // every change with a resourceVersion above base is held
	valid bool   // base is set: the store synced and every rv parsed
}

// windowEntry is one change of the window, its resourceVersion parsed.
// noUndo (a change Backfill read that does not say the object's version
// before it: OldUnknown, or a deletion whose Old is the server's last
// state, at the deletion's resourceVersion) stops StateAt: the state
// before it cannot be computed.
type windowEntry[T Object] struct {
	Change[T]
	rv     uint64
	noUndo bool
}

func newWindow[T Object](n int) *window[T] {
	if n <= 0 {
		return nil
	}
	return &window[T]{ring: make([]windowEntry[T], n)}
}

// restart empties the window and starts it at a list at rv: the first
// sync and every relist. A relist's changes are not kept: a resume from
// before rv is ErrTooOld, as the API server's watch cache empties its
// buffer on a relist (watchCache.Replace) and answers 410 to a resume
// from before it. Its changes carry resourceVersions that are not their
// own (was, rv: see diff), so a resume from one of them could not tell
// which of the changes that share it the subscriber saw.
func (h *window[T]) restart(rv string) {
	base, ok := ParseRV(rv)
	h.base, h.valid = base, ok
	clear(h.ring)
	h.start, h.size = 0, 0
}

// at is the i-th change from the oldest.
func (h *window[T]) at(i int) *windowEntry[T] { return &h.ring[(h.start+i)%len(h.ring)] }

// add records c, evicting the oldest change when the ring is full.
func (h *window[T]) add(c Change[T]) {
	if !h.valid {
		return
	}
	rv, ok := ParseRV(c.ResourceVersion)
	if !ok {
		h.valid = false
		clear(h.ring)
		h.size = 0
		return
	}
	n := len(h.ring)
	if h.size == n {
		h.base = h.ring[h.start].rv
		h.ring[h.start] = windowEntry[T]{Change: c, rv: rv}
		h.start = (h.start + 1) % n
		return
	}
	h.ring[(h.start+h.size)%n] = windowEntry[T]{Change: c, rv: rv}
	h.size++
}

// oldest is the resourceVersion the window holds every change after, ""
// when it holds nothing.
func (h *window[T]) oldest() string {
	if h == nil || !h.valid {
		return ""
	}
	return strconv.FormatUint(h.base, 10)
}

// since returns the changes after from, oldest first, or a *TooOldError;
// with needOld, also when one of them has OldUnknown.
func (h *window[T]) since(from uint64, needOld bool) ([]Change[T], error) {
	if !h.valid || from < h.base {
		return nil, &TooOldError{RV: strconv.FormatUint(from, 10), Oldest: h.oldest()}
	}
	var out []Change[T]
	for i := range h.size {
		e := h.at(i)
		if e.rv <= from {
			continue
		}
		if needOld && e.OldUnknown {
			return nil, &TooOldError{RV: strconv.FormatUint(from, 10), Oldest: e.ResourceVersion}
		}
		out = append(out, e.Change)
	}
	return out, nil
}

// SubscribeFrom starts an Ordered subscription that resumes after
// resourceVersion rv: it is queued every change the store applied after rv
// (from its window, see Options.Window), then every change from now on,
// as an Ordered subscription (opts.Mode is ignored). It queues no initial
// state and no Synced. It fails with ErrTooOld (a *TooOldError) when the
// window no longer holds every change after rv (or the store keeps none:
// see Backfill for one that the server still holds), ErrTooLarge when rv
// is newer than the store, ErrNotSynced before the first sync, and
// ErrInvalidResourceVersion when rv is not a number; with opts.NeedOld,
// ErrTooOld too when a change to replay has OldUnknown. The caller closes the
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
	if err := s.checkRVLocked(from, rv); err != nil {
		return nil, err
	}
	changes, err := s.window.since(from, opts.NeedOld)
	if err != nil {
		return nil, err
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

// checkRVLocked fails as SubscribeFrom does before the first sync, for a
// resourceVersion (from, written rv) newer than the store's, and when the
// store keeps no window. The caller holds mu.
func (s *Store[T]) checkRVLocked(from uint64, rv string) error {
	select {
	case <-s.synced:
	default:
		return ErrNotSynced
	}
	if cur, ok := ParseRV(s.rv); ok && from > cur {
		return fmt.Errorf("%w: %s is newer than %s", ErrTooLarge, rv, s.rv)
	}
	if s.window == nil {
		return &TooOldError{RV: rv}
	}
	return nil
}

// OldestResourceVersion is the oldest resourceVersion that SubscribeFrom
// and StateAt accept (every change after it is in the window), "" when
// the store keeps none or has not synced.
func (s *Store[T]) OldestResourceVersion() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.window.oldest()
}
