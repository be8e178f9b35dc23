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

func (t *tracker) track(c store.Change[*object.Object]) []output.Event {
	switch c.Type {
	case store.Applied:
		if prev, ok := t.resyncing[c.Key]; ok {
			delete(t.resyncing, c.Key)
			t.known[c.Key] = c.Object
			if prev.ResourceVersion == c.Object.ResourceVersion {
				return nil
			}
		}
		t.known[c.Key] = c.Object
		ev := output.Event{Type: output.Applied, Object: c.Object}
		if c.HasOld {
			ev.Old = c.Old
		}
		return []output.Event{ev}
	case store.Deleted:
		delete(t.known, c.Key)
		return []output.Event{{Type: output.Deleted, Object: c.Object}}
	case store.Resync:
		t.resyncing, t.known = t.known, map[store.Key]*object.Object{}
	case store.Synced:
		gone := t.resyncing
		t.resyncing = nil
		return deletedEvents(gone)
	}
	return nil
}

func deletedEvents(gone map[store.Key]*object.Object) []output.Event {
	if len(gone) == 0 {
		return nil
	}
	events := make([]output.Event, 0, len(gone))
	for _, obj := range gone {
		events = append(events, output.Event{Type: output.Deleted, Object: obj})
	}
	slices.SortFunc(events, func(a, b output.Event) int {
		return cmp.Or(cmp.Compare(a.Object.Namespace, b.Object.Namespace), cmp.Compare(a.Object.Name, b.Object.Name))
	})
	return events
}
