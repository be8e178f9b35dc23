package store

import (
	"fmt"
	"maps"
	"slices"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// Backfill extends the window back to resourceVersion from, with what a
// watch of the server from `from` sent: its ADDED, MODIFIED and DELETED
// events in order (bookmarks are skipped), up to the resourceVersion the
// window holds every change after (OldestResourceVersion, which the
// caller read first and watched past; later events are dropped). The store
// then answers SubscribeFrom(from) and StateAt for any resourceVersion
// from `from` on, as the server would: a client that held a resourceVersion
// older than the store's first list resumes without relisting.
//
// The events must follow each other in resourceVersion order after from.
// An ADDED event says the object did not exist before; a DELETED event
// carries its last state (at the deletion's resourceVersion); a MODIFIED
// event of an object with no earlier event in the batch does not say what
// it was before (its Change has OldUnknown), so StateAt cannot go back
// across it, nor across a DELETED one of such an object (SubscribeFrom
// can). It fails with ErrTooOld when the
// window has no room for the events, or when oldest is no longer what it
// holds every change after (a relist or an eviction moved it: read it and
// watch again), and with ErrInvalidResourceVersion for an event or from
// that is not a number or out of order. The window is unchanged then.
func (s *Store[T]) Backfill(from, oldest string, events []watch.WatchEvent[T]) error {
	start, ok := ParseRV(from)
	if !ok {
		return fmt.Errorf("%w: %q", ErrInvalidResourceVersion, from)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.window
	if err := s.checkRVLocked(start, from); err != nil {
		return err
	}
	if h.oldest() != oldest || start >= h.base {
		return &TooOldError{RV: from, Oldest: h.oldest()}
	}
	prefix, err := entriesOf(start, h.base, events)
	if err != nil {
		return err
	}
	if len(prefix) > len(h.ring)-h.size {
		return &TooOldError{RV: from, Oldest: h.oldest()}
	}
	for i := len(prefix) - 1; i >= 0; i-- {
		h.start = (h.start - 1 + len(h.ring)) % len(h.ring)
		h.ring[h.start] = prefix[i]
		h.size++
	}
	h.base = start
	return nil
}

// entriesOf turns a server's watch events after from into window
// entries, up to and including resourceVersion to.
func entriesOf[T Object](from, to uint64, events []watch.WatchEvent[T]) ([]windowEntry[T], error) {
	var out []windowEntry[T]
	last := map[Key]T{} // each key's latest state in the batch
	prev := from
	for _, ev := range events {
		if ev.Type != watch.WatchAdded && ev.Type != watch.WatchModified && ev.Type != watch.WatchDeleted {
			continue
		}
		rvs := ev.Object.GetResourceVersion()
		rv, ok := ParseRV(rvs)
		if !ok || rv <= prev {
			return nil, fmt.Errorf("%w: event at %q after %d", ErrInvalidResourceVersion, rvs, prev)
		}
		if rv > to {
			break
		}
		prev = rv
		k := KeyOf(ev.Object)
		e := windowEntry[T]{Change: Change[T]{Type: Applied, Key: k, Object: ev.Object, ResourceVersion: rvs}, rv: rv}
		before, seen := last[k]
		switch ev.Type {
		case watch.WatchAdded: // nothing before it
		case watch.WatchModified:
			e.Old, e.HasOld, e.OldUnknown, e.noUndo = before, seen, !seen, !seen
		case watch.WatchDeleted:
			e.Type, e.Old, e.HasOld, e.noUndo = Deleted, before, true, !seen
			if !seen {
				e.Old = ev.Object
			}
		}
		last[k] = ev.Object
		out = append(out, e)
	}
	return out, nil
}

// StateAt is the state of the store at resourceVersion rv, in the API
// server's order (CompareKeys): the current state with every change of the
// window after rv undone. It fails as SubscribeFrom does, and with
// ErrTooOld when a change after rv does not say what it changed (see
// Backfill). rv may be any resourceVersion from OldestResourceVersion on,
// whether a change of this store carries it or not: the state is the
// same from one change to the next.
func (s *Store[T]) StateAt(rv string) ([]T, error) {
	at, ok := ParseRV(rv)
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrInvalidResourceVersion, rv)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.checkRVLocked(at, rv); err != nil {
		return nil, err
	}
	h := s.window
	if !h.valid || at < h.base {
		return nil, &TooOldError{RV: rv, Oldest: h.oldest()}
	}
	items := maps.Clone(s.items)
	for i := h.size - 1; i >= 0 && h.at(i).rv > at; i-- {
		e := h.at(i)
		if e.noUndo {
			return nil, &TooOldError{RV: rv, Oldest: e.ResourceVersion}
		}
		if e.HasOld {
			items[e.Key] = e.Old
		} else {
			delete(items, e.Key)
		}
	}
	keys := slices.SortedFunc(maps.Keys(items), CompareKeys)
	out := make([]T, len(keys))
	for i, k := range keys {
		out[i] = items[k]
	}
	return out, nil
}
