package store

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// TestScripted feeds scripted event slices to a store with one subscriber
// that joined before the first list and drains after every event, so each
// event's notifications are seen exactly, without coalescing.
func TestScripted(t *testing.T) {
	tests := []struct {
		name      string
		events    []ev
		want      []string // notifications, in order
		wantState []string
		wantRV    string
	}{{
		name:      "first list: Applied in list order, then Synced",
		events:    relist("10", "ns/b@3", "ns/a@5", "default/c@1", "node1@2"),
		want:      []string{"Applied ns/b@3", "Applied ns/a@5", "Applied default/c@1", "Applied node1@2", "Synced"},
		wantState: []string{"default/c@1", "node1@2", "ns/a@5", "ns/b@3"},
		wantRV:    "10",
	}, {
		name:   "empty first list still syncs",
		events: relist("1"),
		want:   []string{"Synced"},
		wantRV: "1",
	}, {
		name: "live Apply and Delete carry Old",
		events: script(relist("1", "ns/a@1"),
			applyEv("ns/a@2"), applyEv("ns/b@3"), deleteEv("ns/a@4")),
		want: []string{"Applied ns/a@1", "Synced",
			"Applied ns/a@2 old=1", "Applied ns/b@3", "Deleted ns/a@4 old=2"},
		wantState: []string{"ns/b@3"},
		wantRV:    "4",
	}, {
		name: "duplicate Apply with the same resourceVersion is silent",
		events: script(relist("1", "ns/a@1"),
			applyEv("ns/a@1"), applyEv("ns/a@2"), applyEv("ns/a@2")),
		want:      []string{"Applied ns/a@1", "Synced", "Applied ns/a@2 old=1"},
		wantState: []string{"ns/a@2"},
		wantRV:    "2",
	}, {
		name: "relist: changed, unchanged, new and gone",
		events: script(relist("3", "ns/changed@1", "ns/same@2", "ns/gone@3"),
			relist("9", "ns/new@9", "ns/same@2", "ns/changed@7")),
		want: []string{"Applied ns/changed@1", "Applied ns/same@2", "Applied ns/gone@3", "Synced",
			"Deleted ns/gone@3 old=3", "Applied ns/changed@7 old=1", "Applied ns/new@9"},
		wantState: []string{"ns/changed@7", "ns/new@9", "ns/same@2"},
		wantRV:    "9",
	}, {
		name: "relist deletions come first, in key order",
		events: script(relist("1", "b/x@1", "a/z@1", "a/y@1", "keep@1"),
			relist("2", "keep@1")),
		want: []string{"Applied b/x@1", "Applied a/z@1", "Applied a/y@1", "Applied keep@1", "Synced",
			"Deleted a/y@1 old=1", "Deleted a/z@1 old=1", "Deleted b/x@1 old=1"},
		wantState: []string{"keep@1"},
		wantRV:    "2",
	}, {
		name: "empty relist deletes everything",
		events: script(relist("1", "ns/a@1", "ns/b@1"),
			relist("5")),
		want:   []string{"Applied ns/a@1", "Applied ns/b@1", "Synced", "Deleted ns/a@1 old=1", "Deleted ns/b@1 old=1"},
		wantRV: "5",
	}, {
		name: "Synced only once: unchanged relists say nothing",
		events: script(relist("1", "ns/a@1"),
			relist("2", "ns/a@1"), relist("3", "ns/a@1")),
		want:      []string{"Applied ns/a@1", "Synced"},
		wantState: []string{"ns/a@1"},
		wantRV:    "3",
	}, {
		name: "a key listed twice counts once, last wins",
		events: script(relist("1", "ns/a@1"),
			relist("4", "ns/a@2", "ns/b@3", "ns/a@4")),
		want:      []string{"Applied ns/a@1", "Synced", "Applied ns/b@3", "Applied ns/a@4 old=1"},
		wantState: []string{"ns/a@4", "ns/b@3"},
		wantRV:    "4",
	}, {
		name: "a restarted relist drops the first attempt's buffer",
		events: script(relist("1", "ns/a@1"),
			ev{Type: watch.Init}, ev{Type: watch.InitApply, Object: mk("ns/half@2")},
			relist("3", "ns/a@1", "ns/b@3")),
		want:      []string{"Applied ns/a@1", "Synced", "Applied ns/b@3"},
		wantState: []string{"ns/a@1", "ns/b@3"},
		wantRV:    "3",
	}, {
		name: "InitApply without Init starts a relist",
		events: script(relist("1", "ns/a@1"),
			ev{Type: watch.InitApply, Object: mk("ns/b@2")},
			ev{Type: watch.InitDone, ResourceVersion: "2"}),
		want:      []string{"Applied ns/a@1", "Synced", "Deleted ns/a@1 old=1", "Applied ns/b@2"},
		wantState: []string{"ns/b@2"},
		wantRV:    "2",
	}, {
		name:      "Bookmark moves ResourceVersion and says nothing",
		events:    script(relist("1", "ns/a@1"), bookmarkEv("7")),
		want:      []string{"Applied ns/a@1", "Synced"},
		wantState: []string{"ns/a@1"},
		wantRV:    "7",
	}, {
		name:      "InitDone's resourceVersion wins over the objects'",
		events:    script(relist("1", "ns/a@1"), bookmarkEv("7"), relist("42", "ns/a@1")),
		want:      []string{"Applied ns/a@1", "Synced"},
		wantState: []string{"ns/a@1"},
		wantRV:    "42",
	}, {
		name:      "Delete's resourceVersion becomes the store's",
		events:    script(relist("1", "ns/a@1"), deleteEv("ns/a@8")),
		want:      []string{"Applied ns/a@1", "Synced", "Deleted ns/a@8 old=1"},
		wantState: nil,
		wantRV:    "8",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New[*obj](Options[*obj]{})
			sub := s.Subscribe(t.Context(), SubscribeOptions{})
			defer sub.Close()
			var got []string
			for _, e := range tt.events {
				mustApply(t, s, e)
				got = append(got, describeAll(drain(t, sub))...)
			}
			if d := diffStrings(got, tt.want); d != "" {
				t.Errorf("notifications differ:%s", d)
			}
			if d := diffStrings(state(s), tt.wantState); d != "" {
				t.Errorf("state differs:%s", d)
			}
			if got := s.ResourceVersion(); got != tt.wantRV {
				t.Errorf("ResourceVersion() = %q, want %q", got, tt.wantRV)
			}
			if got, want := s.Len(), len(tt.wantState); got != want {
				t.Errorf("Len() = %d, want %d", got, want)
			}
		})
	}
}

func TestApplyRejectsUnknownEventType(t *testing.T) {
	s := New[*obj](Options[*obj]{})
	if err := s.Apply(t.Context(), ev{Type: watch.EventType(99)}); err == nil {
		t.Fatal("Apply(EventType(99)) = nil, want an error")
	}
}

func TestGetAndListFilter(t *testing.T) {
	s := New[*obj](Options[*obj]{})
	mustApply(t, s, relist("1", "b/x@1", "a/y@2", "a/x@3")...)
	if o, ok := s.Get(Key{"a", "y"}); !ok || o.rv != "2" {
		t.Errorf("Get(a/y) = %v, %v; want a/y@2", o, ok)
	}
	if o, ok := s.Get(Key{"a", "nope"}); ok {
		t.Errorf("Get(a/nope) = %v, true; want nothing", o)
	}
	var got []string
	for _, o := range s.List(func(o *obj) bool { return o.name == "x" }) {
		got = append(got, o.String())
	}
	if d := diffStrings(got, []string{"a/x@3", "b/x@1"}); d != "" {
		t.Errorf("List(name == x):%s", d)
	}
}

// TestRelistIsBufferedUntilInitDone: readers see the old state while a
// relist is buffered, and the new one in one step after InitDone.
func TestRelistIsBufferedUntilInitDone(t *testing.T) {
	s := New[*obj](Options[*obj]{})
	mustApply(t, s, relist("1", "ns/a@1", "ns/b@1", "ns/c@1")...)
	sub := s.Subscribe(t.Context(), SubscribeOptions{})
	defer sub.Close()
	drain(t, sub)

	mustApply(t, s,
		ev{Type: watch.Init},
		ev{Type: watch.InitApply, Object: mk("ns/a@2")},
		ev{Type: watch.InitApply, Object: mk("ns/d@2")})
	before := []string{"ns/a@1", "ns/b@1", "ns/c@1"}
	if d := diffStrings(state(s), before); d != "" {
		t.Errorf("List during the relist:%s", d)
	}
	if o, _ := s.Get(Key{"ns", "a"}); o.rv != "1" {
		t.Errorf("Get(ns/a) during the relist = %v, want ns/a@1", o)
	}
	if _, ok := s.Get(Key{"ns", "d"}); ok {
		t.Error("Get(ns/d) during the relist found the buffered object")
	}
	if s.Len() != 3 || s.ResourceVersion() != "1" {
		t.Errorf("Len, ResourceVersion during the relist = %d, %q; want 3, \"1\"", s.Len(), s.ResourceVersion())
	}
	if got := drain(t, sub); len(got) != 0 {
		t.Errorf("notified during the relist: %q", describeAll(got))
	}

	mustApply(t, s, ev{Type: watch.InitDone, ResourceVersion: "2"})
	if d := diffStrings(state(s), []string{"ns/a@2", "ns/d@2"}); d != "" {
		t.Errorf("List after InitDone:%s", d)
	}
	if s.Len() != 2 || s.ResourceVersion() != "2" {
		t.Errorf("Len, ResourceVersion after InitDone = %d, %q; want 2, \"2\"", s.Len(), s.ResourceVersion())
	}
}

// TestRelistKeepsUnchangedObjects: an object a relist finds unchanged stays
// the very same pointer, during buffering and after the swap.
func TestRelistKeepsUnchangedObjects(t *testing.T) {
	s := New[*obj](Options[*obj]{})
	mustApply(t, s, relist("1", "ns/same@1", "ns/changed@1")...)
	origSame, _ := s.Get(Key{"ns", "same"})
	origChanged, _ := s.Get(Key{"ns", "changed"})

	relisted := map[string]*obj{"same": mk("ns/same@1"), "changed": mk("ns/changed@2")}
	mustApply(t, s, ev{Type: watch.Init},
		ev{Type: watch.InitApply, Object: relisted["same"]},
		ev{Type: watch.InitApply, Object: relisted["changed"]})
	if got := s.relist.items[Key{"ns", "same"}]; got != origSame {
		t.Errorf("relist buffer holds %p for the unchanged object, want the stored %p", got, origSame)
	}
	mustApply(t, s, ev{Type: watch.InitDone, ResourceVersion: "2"})

	if got, _ := s.Get(Key{"ns", "same"}); got != origSame {
		t.Errorf("unchanged object after relist is %p, want the original %p", got, origSame)
	}
	if got, _ := s.Get(Key{"ns", "changed"}); got != relisted["changed"] || got == origChanged {
		t.Errorf("changed object after relist is %p, want the relisted %p", got, relisted["changed"])
	}
}

// TestRelistGenerationsNeverMix: readers that List, Get and Len while the
// writer runs many relists only ever see one whole generation. Every object
// of generation g has payload g, and generation g has size(g) objects.
func TestRelistGenerationsNeverMix(t *testing.T) {
	const gens = 300
	size := func(g int) int { return 5 + g%23 }
	s := New[*obj](Options[*obj]{})

	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for !stop.Load() {
				list := s.List(nil)
				if len(list) == 0 {
					continue // before the first generation
				}
				g, _ := strconv.Atoi(list[0].payload)
				for _, o := range list {
					if o.payload != list[0].payload {
						t.Errorf("List mixes generations %s and %s", list[0].payload, o.payload)
						return
					}
				}
				if len(list) != size(g) {
					t.Errorf("List of generation %d has %d objects, want %d", g, len(list), size(g))
					return
				}
				if n := s.Len(); n < 5 || n >= 5+23 {
					t.Errorf("Len() = %d, not the size of any generation", n)
					return
				}
			}
		})
	}

	for g := 1; g <= gens; g++ {
		rv := strconv.Itoa(g)
		mustApply(t, s, ev{Type: watch.Init})
		for i := range size(g) {
			o := &obj{ns: "ns" + strconv.Itoa(i%3), name: "o" + strconv.Itoa(i), rv: rv, payload: rv}
			mustApply(t, s, ev{Type: watch.InitApply, Object: o})
		}
		mustApply(t, s, ev{Type: watch.InitDone, ResourceVersion: rv})
	}
	stop.Store(true)
	wg.Wait()
	if got, want := s.Len(), size(gens); got != want {
		t.Errorf("final Len() = %d, want %d", got, want)
	}
}

func TestWaitForSync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := New[*obj](Options[*obj]{})

		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
		defer cancel()
		if err := s.WaitForSync(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("WaitForSync before any list = %v, want DeadlineExceeded", err)
		}
		canceled, cancel2 := context.WithCancel(t.Context())
		cancel2()
		if err := s.WaitForSync(canceled); !errors.Is(err, context.Canceled) {
			t.Fatalf("WaitForSync(canceled ctx) = %v, want Canceled", err)
		}

		done := make(chan error, 1)
		go func() { done <- s.WaitForSync(context.Background()) }()

		// A buffered relist is not a sync.
		mustApply(t, s, ev{Type: watch.Init}, ev{Type: watch.InitApply, Object: mk("ns/a@1")})
		synctest.Wait() // WaitForSync waits, or has returned
		select {
		case err := <-done:
			t.Fatalf("WaitForSync returned %v before InitDone", err)
		case <-s.Synced():
			t.Fatal("Synced() closed before InitDone")
		default:
		}

		mustApply(t, s, ev{Type: watch.InitDone, ResourceVersion: "1"})
		synctest.Wait()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("WaitForSync after InitDone = %v", err)
			}
		default:
			t.Fatal("WaitForSync still blocked after InitDone")
		}
		<-s.Synced()
		// Once synced it stays synced.
		mustApply(t, s, relist("2")...)
		if err := s.WaitForSync(t.Context()); err != nil {
			t.Errorf("WaitForSync after sync = %v, want nil", err)
		}
	})
}

// TestRelistUnheard: a store nobody listens to builds no changes at a
// list or a relist, yet loses nothing: its state is the list's, and a
// subscriber that comes afterwards is given that state, then the changes
// that follow.
func TestRelistUnheard(t *testing.T) {
	s := New[*obj](Options[*obj]{})
	mustApply(t, s, relist("5", "ns/a@1", "ns/b@2", "ns/c@3")...)
	mustApply(t, s, relist("9", "ns/a@1", "ns/c@8", "ns/d@9")...)
	if got, want := state(s), []string{"ns/a@1", "ns/c@8", "ns/d@9"}; !slices.Equal(got, want) {
		t.Fatalf("state = %v, want %v", got, want)
	}
	sub := s.Subscribe(context.Background(), SubscribeOptions{Mode: Ordered})
	defer sub.Close()
	mustApply(t, s, deleteEv("ns/a@10"))
	want := []string{"Applied ns/a@1", "Applied ns/c@8", "Applied ns/d@9", "Synced", "Deleted ns/a@10 old=1"}
	if got := describeAll(drain(t, sub)); !slices.Equal(got, want) {
		t.Errorf("subscriber got %v, want %v", got, want)
	}
}
