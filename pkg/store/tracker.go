package store

import "slices"

// Tracker turns a subscription's changes into exact Applied and Deleted
// changes, even across a Resync: it remembers the last version it passed
// on of each object, so that after a Resync it passes on only the objects
// that changed, each with the version passed on last as Old (a Resync's
// changes carry none: without it, an object seen before would pass for a
// new one), and the deletions the dropped queue would have carried (at
// the Synced that ends the resync, in key order, each with that Synced's
// resourceVersion and the version passed on last as Old).
//
// A Tracker belongs to one subscription and one goroutine. It holds one
// reference per object of the state; Resync and Synced changes are
// consumed, never passed on.
type Tracker[T Object] struct {
	known     map[Key]T
	resyncing map[Key]T // passed on before the resync, not yet seen again
}

// NewTracker returns a Tracker that has passed on nothing yet.
func NewTracker[T Object]() *Tracker[T] { return &Tracker[T]{known: map[Key]T{}} }

// Track appends to dst the exact changes that c makes.
func (t *Tracker[T]) Track(c Change[T], dst []Change[T]) []Change[T] {
	switch c.Type {
	case Applied:
		if prev, ok := t.resyncing[c.Key]; ok {
			delete(t.resyncing, c.Key)
			t.known[c.Key] = c.Object
			if prev.GetResourceVersion() == c.Object.GetResourceVersion() {
				return dst
			}
			if !c.HasOld {
				c.Old, c.HasOld = prev, true
			}
		}
		t.known[c.Key] = c.Object
		return append(dst, c)
	case Deleted:
		delete(t.known, c.Key)
		return append(dst, c)
	case Resync:
		t.resyncing, t.known = t.known, map[Key]T{}
	case Synced:
		gone := t.resyncing
		t.resyncing = nil
		return appendGone(dst, gone, c.ResourceVersion)
	}
	return dst
}

// appendGone appends a Deleted change per object of gone, in key order.
func appendGone[T Object](dst []Change[T], gone map[Key]T, rv string) []Change[T] {
	n := len(dst)
	for k, obj := range gone {
		dst = append(dst, Change[T]{Type: Deleted, Key: k, Object: obj, Old: obj, HasOld: true, ResourceVersion: rv})
	}
	slices.SortFunc(dst[n:], func(a, b Change[T]) int { return CompareKeys(a.Key, b.Key) })
	return dst
}
