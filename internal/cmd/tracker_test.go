package cmd

import (
	"fmt"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

func obj(name, rv string) *object.Object {
	return &object.Object{Namespace: "ns", Name: name, ResourceVersion: rv}
}

func change(t store.ChangeType, o *object.Object) store.Change[*object.Object] {
	c := store.Change[*object.Object]{Type: t, Object: o}
	if o != nil {
		c.Key = store.KeyOf(o)
	}
	return c
}

// TestTracker: after a Resync the tracker prints only what changed, and
// the deletions the dropped queue would have carried.
func TestTracker(t *testing.T) {
	tests := []struct {
		name    string
		changes []store.Change[*object.Object]
		want    string // events of the last change
	}{{
		name:    "applied",
		changes: []store.Change[*object.Object]{change(store.Applied, obj("a", "1"))},
		want:    "[APPLIED ns/a@1]",
	}, {
		name:    "deleted",
		changes: []store.Change[*object.Object]{change(store.Applied, obj("a", "1")), change(store.Deleted, obj("a", "2"))},
		want:    "[DELETED ns/a@2]",
	}, {
		name: "resync: unchanged objects are not printed again",
		changes: []store.Change[*object.Object]{
			change(store.Applied, obj("a", "1")), change(store.Resync, nil), change(store.Applied, obj("a", "1")),
		},
		want: "[]",
	}, {
		name: "resync: changed objects are",
		changes: []store.Change[*object.Object]{
			change(store.Applied, obj("a", "1")), change(store.Resync, nil), change(store.Applied, obj("a", "3")),
		},
		want: "[APPLIED ns/a@3]",
	}, {
		name: "resync: objects not seen again are deleted at Synced, in key order",
		changes: []store.Change[*object.Object]{
			change(store.Applied, obj("c", "1")), change(store.Applied, obj("b", "1")), change(store.Applied, obj("a", "1")),
			change(store.Resync, nil), change(store.Applied, obj("b", "1")), change(store.Synced, nil),
		},
		want: "[DELETED ns/a@1 DELETED ns/c@1]",
	}, {
		name: "synced without a resync prints nothing",
		changes: []store.Change[*object.Object]{
			change(store.Applied, obj("a", "1")), change(store.Synced, nil),
		},
		want: "[]",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTracker()
			var last []string
			for _, c := range tt.changes {
				last = nil
				for _, ev := range tr.track(c, nil) {
					last = append(last, fmt.Sprintf("%s %s/%s@%s", ev.Type, ev.Object.Namespace, ev.Object.Name, ev.Object.ResourceVersion))
				}
			}
			if got := fmt.Sprint(last); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}
