package store

import (
	"context"
	"fmt"
	"testing"
)

func tracked(t ChangeType, spec string) Change[*obj] {
	c := Change[*obj]{Type: t, ResourceVersion: "9"}
	if spec != "" {
		c.Object = mk(spec)
		c.Key = KeyOf(c.Object)
	}
	return c
}

// TestTracker: after a Resync the tracker passes on only what changed, and
// the deletions the dropped queue would have carried.
func TestTracker(t *testing.T) {
	tests := []struct {
		name    string
		changes []Change[*obj]
		want    string // changes passed on for the last one
	}{{
		name:    "applied",
		changes: []Change[*obj]{tracked(Applied, "ns/a@1")},
		want:    "[Applied ns/a@1]",
	}, {
		name:    "deleted",
		changes: []Change[*obj]{tracked(Applied, "ns/a@1"), tracked(Deleted, "ns/a@2")},
		want:    "[Deleted ns/a@2]",
	}, {
		name:    "resync: unchanged objects are not passed on again",
		changes: []Change[*obj]{tracked(Applied, "ns/a@1"), tracked(Resync, ""), tracked(Applied, "ns/a@1")},
		want:    "[]",
	}, {
		name:    "resync: changed objects are, with the version passed on last as Old",
		changes: []Change[*obj]{tracked(Applied, "ns/a@1"), tracked(Resync, ""), tracked(Applied, "ns/a@3")},
		want:    "[Applied ns/a@3 old=1]",
	}, {
		name:    "resync: objects first seen in it are new",
		changes: []Change[*obj]{tracked(Applied, "ns/a@1"), tracked(Resync, ""), tracked(Applied, "ns/b@3")},
		want:    "[Applied ns/b@3]",
	}, {
		name: "resync: objects not seen again are deleted at Synced, in key order",
		changes: []Change[*obj]{
			tracked(Applied, "ns/c@1"), tracked(Applied, "ns/b@1"), tracked(Applied, "ns/a@1"),
			tracked(Resync, ""), tracked(Applied, "ns/b@1"), tracked(Synced, ""),
		},
		want: "[Deleted ns/a@1 old=1 Deleted ns/c@1 old=1]",
	}, {
		name:    "synced without a resync passes nothing on",
		changes: []Change[*obj]{tracked(Applied, "ns/a@1"), tracked(Synced, "")},
		want:    "[]",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTracker[*obj]()
			var last []Change[*obj]
			for _, c := range tt.changes {
				last = tr.Track(c, nil)
			}
			if got := fmt.Sprint(describeAll(last)); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
			for _, c := range last {
				if c.ResourceVersion == "" {
					t.Errorf("%s: no resourceVersion", describe(c))
				}
			}
		})
	}
}

// TestSnapshot: the items and the resourceVersion they are current to.
func TestSnapshot(t *testing.T) {
	s := New(Options[*obj]{})
	mustApply(t, s, relist("10", "ns/b@5", "ns/a@4", "other/c@6")...)
	mustApply(t, s, applyEv("ns/d@11"))
	items, rv := s.Snapshot(func(o *obj) bool { return o.ns == "ns" })
	if got := fmt.Sprint(items); got != "[ns/a@4 ns/b@5 ns/d@11]" || rv != "11" {
		t.Errorf("Snapshot = %s at %q, want [ns/a@4 ns/b@5 ns/d@11] at 11", got, rv)
	}
}

// TestSubscribeKeep: a subscription narrowed by Keep is queued the kept
// objects only, in its initial state and after.
func TestSubscribeKeep(t *testing.T) {
	for mode, want := range map[Mode][]string{
		Ordered: {"Applied ns/a@4", "Synced", "Applied ns/d@12", "Deleted ns/a@14 old=4"},
		// The deletion takes the slot of the queued creation (latest wins).
		Coalescing: {"Deleted ns/a@14", "Synced", "Applied ns/d@12"},
	} {
		t.Run(mode.String(), func(t *testing.T) {
			s := New(Options[*obj]{})
			mustApply(t, s, relist("10", "ns/a@4", "other/b@5")...)
			sub := s.Subscribe(context.Background(), SubscribeOptions{Mode: mode, Keep: func(k Key) bool { return k.Namespace == "ns" }})
			defer sub.Close()
			mustApply(t, s, applyEv("other/c@11"), applyEv("ns/d@12"), deleteEv("other/b@13"), deleteEv("ns/a@14"))
			got := describeAll(drain(t, sub))
			if d := diffStrings(got, want); d != "" {
				t.Error(d)
			}
		})
	}
}
