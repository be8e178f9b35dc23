package cmd

import (
	"cmp"
	"slices"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/output"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// tracker turns a subscription's changes into APPLIED and DELETED events,
// exact even across a Resync: it remembers what it printed, so that after a
// resync it prints only what changed and the deletions it would otherwise
// miss.
type tracker struct {
	known     map[store.Key]*object.Object
	resyncing map[store.Key]*object.Object // printed before the resync, not yet seen again
}

func newTracker() *tracker { return &tracker{known: map[store.Key]*object.Object{}} }

// track appends the events c makes to dst.
func (t *tracker) track(c store.Change[*object.Object], dst []output.Event) []output.Event {
	switch c.Type {
	case store.Applied:
		if prev, ok := t.resyncing[c.Key]; ok {
			delete(t.resyncing, c.Key)
			t.known[c.Key] = c.Object
			if prev.ResourceVersion == c.Object.ResourceVersion {
				return dst
			}
		}
		t.known[c.Key] = c.Object
		ev := output.Event{Type: output.Applied, Object: c.Object}
		if c.HasOld {
			ev.Old = c.Old
		}
		return append(dst, ev)
	case store.Deleted:
		delete(t.known, c.Key)
		return append(dst, output.Event{Type: output.Deleted, Object: c.Object})
	case store.Resync:
		t.resyncing, t.known = t.known, map[store.Key]*object.Object{}
	case store.Synced:
		gone := t.resyncing
		t.resyncing = nil
		return appendDeleted(dst, gone)
	}
	return dst
}

// appendDeleted appends a DELETED event per object of gone, in key order.
func appendDeleted(dst []output.Event, gone map[store.Key]*object.Object) []output.Event {
	n := len(dst)
	for _, obj := range gone {
		dst = append(dst, output.Event{Type: output.Deleted, Object: obj})
	}
	slices.SortFunc(dst[n:], func(a, b output.Event) int {
		return cmp.Or(cmp.Compare(a.Object.Namespace, b.Object.Namespace), cmp.Compare(a.Object.Name, b.Object.Name))
	})
	return dst
}
