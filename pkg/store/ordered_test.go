package store

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

var modes = []Mode{Coalescing, Ordered}

// describeRV is describe with the change's ResourceVersion: "... #rv".
func describeRV(cs []Change[*obj]) []string {
	out := describeAll(cs)
	for i, c := range cs {
		out[i] += " #" + c.ResourceVersion
	}
	return out
}

// TestOrdered: a subscriber that saw the first list does not read while
// the events happen, then drains once: it gets every change, in the order
// applied, each with the version just before it as Old.
func TestOrdered(t *testing.T) {
	tests := []struct {
		name   string
		first  []string // the first list, seen by the subscriber
		events []ev     // applied while it does not read
		want   []string
	}{{
		name:   "every update of one object, Old chained",
		first:  []string{"ns/a@1"},
		events: script(applyEv("ns/a@2"), applyEv("ns/a@3"), applyEv("ns/a@4")),
		want:   []string{"Applied ns/a@2 old=1", "Applied ns/a@3 old=2", "Applied ns/a@4 old=3"},
	}, {
		name:   "order kept across keys",
		first:  []string{"ns/a@1", "ns/b@1"},
		events: script(applyEv("ns/a@2"), applyEv("ns/b@3"), applyEv("ns/a@4"), applyEv("ns/c@5"), applyEv("ns/b@6")),
		want: []string{"Applied ns/a@2 old=1", "Applied ns/b@3 old=1", "Applied ns/a@4 old=2",
			"Applied ns/c@5", "Applied ns/b@6 old=3"},
	}, {
		name:   "created then deleted: both",
		events: script(applyEv("ns/b@2"), deleteEv("ns/b@3")),
		want:   []string{"Applied ns/b@2", "Deleted ns/b@3 old=2"},
	}, {
		name:   "created, updated, deleted, recreated: all four",
		events: script(applyEv("ns/b@2"), applyEv("ns/b@3"), deleteEv("ns/b@4"), applyEv("ns/b@5")),
		want:   []string{"Applied ns/b@2", "Applied ns/b@3 old=2", "Deleted ns/b@4 old=3", "Applied ns/b@5"},
	}, {
		name:   "deleting an object the store never held: Deleted without Old",
		events: script(deleteEv("ns/x@2")),
		want:   []string{"Deleted ns/x@2"},
	}, {
		name:   "a relist's diff follows the pending live changes",
		first:  []string{"ns/a@1", "ns/b@1"},
		events: script(applyEv("ns/a@2"), relist("4", "ns/a@3", "ns/c@4")),
		want:   []string{"Applied ns/a@2 old=1", "Deleted ns/b@1 old=1", "Applied ns/a@3 old=2", "Applied ns/c@4"},
	}, {
		name:   "a relist's diff: Deleted first, then Applied in resourceVersion order",
		first:  []string{"ns/a@1", "ns/b@1", "ns/z@1"},
		events: script(relist("9", "ns/a@7", "ns/c@5", "ns/d@8", "ns/z@6")),
		want:   []string{"Deleted ns/b@1 old=1", "Applied ns/c@5", "Applied ns/z@6 old=1", "Applied ns/a@7 old=1", "Applied ns/d@8"},
	}, {
		name:   "an update undone by a relist: the update, then its deletion",
		first:  []string{"ns/a@1"},
		events: script(applyEv("ns/a@2"), relist("3")),
		want:   []string{"Applied ns/a@2 old=1", "Deleted ns/a@2 old=2"},
	}, {
		name:   "a relist that finds nothing changed, and a bookmark: nothing",
		first:  []string{"ns/a@1"},
		events: script(relist("5", "ns/a@1"), bookmarkEv("6")),
		want:   nil,
	}, {
		name:   "an apply at the same resourceVersion: nothing",
		first:  []string{"ns/a@1"},
		events: script(applyEv("ns/a@1")),
		want:   nil,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New[*obj](Options[*obj]{})
			mustApply(t, s, relist("1", tt.first...)...)
			sub := s.Subscribe(t.Context(), SubscribeOptions{Mode: Ordered})
			defer sub.Close()
			v := newView()
			applyAll(t, v, drain(t, sub))
			mustApply(t, s, tt.events...)
			got := drain(t, sub)
			if d := diffStrings(describeAll(got), tt.want); d != "" {
				t.Errorf("notifications differ:%s", d)
			}
			applyAll(t, v, got)
			if d := v.equal(s); d != "" {
				t.Errorf("view differs from the store:%s", d)
			}
		})
	}
}

func applyAll(t *testing.T, v *view, cs []Change[*obj]) {
	t.Helper()
	for _, c := range cs {
		if err := v.apply(c); err != nil {
			t.Fatal(err)
		}
	}
}

// TestChangeResourceVersion: each change carries the store's
// resourceVersion at that change, in both modes.
func TestChangeResourceVersion(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			s := New[*obj](Options[*obj]{})
			early := s.Subscribe(t.Context(), SubscribeOptions{Mode: mode})
			defer early.Close()
			mustApply(t, s, relist("10", "ns/a@3", "ns/b@7")...)
			want := []string{"Applied ns/a@3 #10", "Applied ns/b@7 #10", "Synced #10"}
			if d := diffStrings(describeRV(drain(t, early)), want); d != "" {
				t.Errorf("first list:%s", d)
			}
			mustApply(t, s, bookmarkEv("12"))
			late := s.Subscribe(t.Context(), SubscribeOptions{Mode: mode})
			defer late.Close()
			want = []string{"Applied ns/a@3 #12", "Applied ns/b@7 #12", "Synced #12"}
			if d := diffStrings(describeRV(drain(t, late)), want); d != "" {
				t.Errorf("state queued for a late joiner:%s", d)
			}
			mustApply(t, s, applyEv("ns/a@13"))
			mustApply(t, s, deleteEv("ns/b@14"))
			mustApply(t, s, relist("20", "ns/a@13", "ns/c@18")...)
			want = []string{"Applied ns/a@13 old=3 #13", "Deleted ns/b@14 old=7 #14", "Applied ns/c@18 #20"}
			for i, sub := range []*Subscription[*obj]{early, late} {
				if d := diffStrings(describeRV(drain(t, sub)), want); d != "" {
					t.Errorf("subscriber %d, live changes and a relist:%s", i, d)
				}
			}
		})
	}
}

// TestOrderedBound: an ordered queue holds one full state plus its bound
// of changes; one change more drops it for Resync, the state and Synced.
func TestOrderedBound(t *testing.T) {
	const limit = 8
	first := []string{"base/a@1", "base/b@1", "base/c@1"} // the bound counts beyond these
	tests := []struct {
		name    string
		changes int
		resync  bool
	}{
		{name: "full: every change delivered", changes: len(first) + limit},
		{name: "one past full: resync", changes: len(first) + limit + 1, resync: true},
		{name: "far past full: resync, the queue bounded", changes: 500, resync: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New[*obj](Options[*obj]{})
			mustApply(t, s, relist("1", first...)...)
			sub := s.Subscribe(t.Context(), SubscribeOptions{Mode: Ordered, Limit: limit})
			defer sub.Close()
			v := newView()
			applyAll(t, v, drain(t, sub))
			var applied []string
			for i := range tt.changes {
				spec := fmt.Sprintf("base/%c@%d", 'a'+i%3, i+2)
				mustApply(t, s, applyEv(spec))
				applied = append(applied, spec)
				if entries, _ := queued(sub); entries > len(first)+limit {
					t.Fatalf("after %d changes the queue holds %d entries; the bound is %d", i+1, entries, len(first)+limit)
				}
			}
			got := drain(t, sub)
			var want []string
			if tt.resync {
				want = append(want, "Resync")
				for _, o := range s.List(nil) {
					want = append(want, "Applied "+o.String())
				}
				want = append(want, "Synced")
			} else {
				for i, spec := range applied {
					c := "Applied " + spec + " old=1"
					if i >= 3 { // the key's version three changes back
						c = fmt.Sprintf("Applied %s old=%d", spec, i-1)
					}
					want = append(want, c)
				}
			}
			if d := diffStrings(describeAll(got), want); d != "" {
				t.Fatalf("after %d changes:%s", tt.changes, d)
			}
			applyAll(t, v, got)
			if d := v.equal(s); d != "" {
				t.Errorf("view differs from the store:%s", d)
			}
			// Every change again afterwards, Old chained from the state.
			rv := tt.changes + 2
			mustApply(t, s, applyEv("base/a@"+strconv.Itoa(rv)))
			got = drain(t, sub)
			if len(got) != 1 || got[0].Type != Applied || got[0].Object.rv != strconv.Itoa(rv) {
				t.Errorf("after the drain: %q", describeAll(got))
			}
			applyAll(t, v, got)
		})
	}
}

// TestBound: which limit a subscription gets, from its options, the
// store's and its mode's default.
func TestBound(t *testing.T) {
	tests := []struct {
		name       string
		mode       Mode
		queueLimit int // the store's
		limit      int // the subscription's
		n          int // objects in the store
		want       int
	}{
		{name: "coalescing default, small store", mode: Coalescing, n: 10, want: 10 + 1024},
		{name: "coalescing default, big store", mode: Coalescing, n: 5000, want: 10_000},
		{name: "ordered default", mode: Ordered, n: 10, want: 10 + DefaultOrderedLimit},
		{name: "the store's QueueLimit", mode: Ordered, queueLimit: 7, n: 10, want: 17},
		{name: "the store's QueueLimit, coalescing", mode: Coalescing, queueLimit: 7, n: 10, want: 17},
		{name: "the subscription's Limit first", mode: Ordered, queueLimit: 7, limit: 3, n: 10, want: 13},
		{name: "the subscription's Limit, coalescing", mode: Coalescing, limit: 3, n: 10, want: 13},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New[*obj](Options[*obj]{QueueLimit: tt.queueLimit})
			sub := s.Subscribe(t.Context(), SubscribeOptions{Mode: tt.mode, Limit: tt.limit})
			defer sub.Close()
			if got := sub.bound(tt.n); got != tt.want {
				t.Errorf("bound(%d) = %d, want %d", tt.n, got, tt.want)
			}
		})
	}
}

// TestOrderedStuckSubscriberBlocksNobody: one ordered subscriber never
// reads, another reads concurrently with the writer. The reader gets every
// change in order; the stuck one stays bounded and, when it reads at last,
// resyncs to the store's state.
func TestOrderedStuckSubscriberBlocksNobody(t *testing.T) {
	const keys, changes, limit = 50, 20_000, 256
	s := New[*obj](Options[*obj]{})
	mustApply(t, s, relist("0")...)
	ctx := t.Context()
	stuck := s.Subscribe(ctx, SubscribeOptions{Mode: Ordered, Limit: limit})
	active := s.Subscribe(ctx, SubscribeOptions{Mode: Ordered, Limit: 2 * changes})
	defer stuck.Close()
	defer active.Close()

	read := make(chan []string, 1)
	go func() {
		var got []string
		v := newView()
		for len(got) < changes+1 { // Synced, then every change
			c, err := active.Next(ctx)
			if err == nil {
				err = v.apply(c)
			}
			if err != nil {
				t.Errorf("active subscriber: %v", err)
				break
			}
			got = append(got, describe(c))
		}
		read <- got
	}()

	want := []string{"Synced"}
	present := map[int]int{} // key -> rv
	for i := 1; i <= changes; i++ {
		k := i % keys
		spec := fmt.Sprintf("ns/o%d@%d", k, i)
		old, had := present[k]
		c := "Applied " + spec
		if i%5 == 0 && had {
			mustApply(t, s, deleteEv(spec))
			delete(present, k)
			c = "Deleted " + spec
		} else {
			mustApply(t, s, applyEv(spec))
			present[k] = i
		}
		if had {
			c += fmt.Sprintf(" old=%d", old)
		}
		want = append(want, c)
		if entries, _ := queued(stuck); entries > keys+limit+2 {
			t.Fatalf("stuck queue holds %d entries, bound %d", entries, keys+limit)
		}
	}
	got := <-read
	if len(got) != len(want) {
		t.Errorf("active subscriber got %d changes, want %d", len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Fatalf("active subscriber's change %d is %q, want %q", i, got[i], want[i])
		}
	}
	v := newView()
	resynced := drain(t, stuck)
	applyAll(t, v, resynced)
	if n := len(resynced); n < 2 || resynced[0].Type != Resync || resynced[n-1].Type != Synced {
		t.Errorf("stuck subscriber: want Resync, the state, Synced; got %d changes", n)
	}
	if d := v.equal(s); d != "" {
		t.Errorf("stuck subscriber's view differs from the store:%s", d)
	}
}

// TestSharedWake: one goroutine waits on a Wake channel shared by a
// coalescing and an ordered subscription of two stores and reads both with
// TryNext; it sees every change either carries, and then blocks.
func TestSharedWake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		wake := make(chan struct{}, 1)
		coalesced, ordered := New[*obj](Options[*obj]{}), New[*obj](Options[*obj]{})
		subs := []*Subscription[*obj]{
			coalesced.Subscribe(ctx, SubscribeOptions{Mode: Coalescing, Wake: wake}),
			ordered.Subscribe(ctx, SubscribeOptions{Mode: Ordered, Wake: wake}),
		}
		got := make([][]string, len(subs))
		reader := make(chan struct{})
		go func() {
			defer close(reader)
			for {
				select {
				case <-wake:
				case <-ctx.Done():
					return
				}
				for i, sub := range subs {
					for {
						c, ok, err := sub.TryNext()
						if err != nil || !ok {
							break
						}
						got[i] = append(got[i], describe(c))
					}
				}
			}
		}()

		steps := []struct {
			name  string
			store *Store[*obj]
			evs   []ev
			want  [2][]string
		}{{
			name: "first list of the coalesced store", store: coalesced, evs: relist("1", "ns/a@1"),
			want: [2][]string{{"Applied ns/a@1", "Synced"}, nil},
		}, {
			name: "first list of the ordered store", store: ordered, evs: relist("1", "ns/b@1"),
			want: [2][]string{nil, {"Applied ns/b@1", "Synced"}},
		}, {
			name: "updates to the ordered store", store: ordered, evs: script(applyEv("ns/b@2"), applyEv("ns/b@3")),
			want: [2][]string{nil, {"Applied ns/b@2 old=1", "Applied ns/b@3 old=2"}},
		}, {
			name: "a deletion in the coalesced store", store: coalesced, evs: script(deleteEv("ns/a@4")),
			want: [2][]string{{"Deleted ns/a@4 old=1"}, nil},
		}}
		for _, st := range steps {
			mustApply(t, st.store, st.evs...)
			synctest.Wait() // the reader has read everything and waits again
			for i := range subs {
				if d := diffStrings(got[i], st.want[i]); d != "" {
					t.Errorf("%s: %v subscription:%s", st.name, modes[i], d)
				}
				got[i] = nil
			}
		}
		for _, sub := range subs {
			sub.Close()
		}
		synctest.Wait()
		if _, _, err := subs[1].TryNext(); err != ErrClosed {
			t.Errorf("TryNext after Close = %v, want ErrClosed", err)
		}
	})
}

// TestOrderedJoinDuringRelist: an ordered subscriber that joins while a
// relist is buffered gets the old state, then the relist's diff.
func TestOrderedJoinDuringRelist(t *testing.T) {
	s := New[*obj](Options[*obj]{})
	mustApply(t, s, relist("1", "ns/a@1", "ns/b@1")...)
	mustApply(t, s, ev{Type: watch.Init}, ev{Type: watch.InitApply, Object: mk("ns/a@2")})
	sub := s.Subscribe(context.Background(), SubscribeOptions{Mode: Ordered})
	defer sub.Close()
	mustApply(t, s, ev{Type: watch.InitDone, ResourceVersion: "2"})
	got := drain(t, sub)
	want := []string{"Applied ns/a@1", "Applied ns/b@1", "Synced", "Deleted ns/b@1 old=1", "Applied ns/a@2 old=1"}
	if d := diffStrings(describeAll(got), want); d != "" {
		t.Errorf("join during relist:%s", d)
	}
	v := newView()
	applyAll(t, v, got)
	if d := v.equal(s); d != "" {
		t.Errorf("view differs from the store:%s", d)
	}
}

// TestOrderedQueueMemory: a reader one to three changes behind reuses its
// queue instead of growing it, and a queue a burst made big is released
// once read.
func TestOrderedQueueMemory(t *testing.T) {
	s := New[*obj](Options[*obj]{})
	mustApply(t, s, relist("0", "ns/a@0", "ns/b@0")...)
	sub := s.Subscribe(t.Context(), SubscribeOptions{Mode: Ordered})
	defer sub.Close()
	v := newView()
	applyAll(t, v, drain(t, sub))
	rv := 1
	mustApply(t, s, applyEv("ns/a@1")) // one behind: the queue never empties
	for range 25_000 {
		for _, name := range []string{"a", "b"} {
			rv++
			mustApply(t, s, applyEv(fmt.Sprintf("ns/%s@%d", name, rv)))
		}
		applyAll(t, v, []Change[*obj]{next(t, sub), next(t, sub)})
	}
	if capacity, _ := queueCap(sub); capacity > 16 {
		t.Errorf("queue capacity grew to %d with at most 3 pending", capacity)
	}

	for range 5000 { // a burst nobody reads meanwhile
		rv++
		mustApply(t, s, applyEv(fmt.Sprintf("ns/a@%d", rv)))
	}
	if capacity, _ := queueCap(sub); capacity < 5000 {
		t.Fatalf("queue capacity %d holds the 5000 changes of the burst?", capacity)
	}
	burst := drain(t, sub)
	applyAll(t, v, burst)
	if len(burst) != 5001 { // the one behind, and the burst
		t.Errorf("read %d changes after the burst, want 5001", len(burst))
	}
	if capacity, _ := queueCap(sub); capacity > keptCapacity {
		t.Errorf("an empty queue keeps a capacity of %d after a burst, want at most %d", capacity, keptCapacity)
	}
	if d := v.equal(s); d != "" {
		t.Errorf("view differs from the store:%s", d)
	}
}

// TestChangeAt: a live change (a watch event) carries the time it came
// into the store; the changes of a relist and the queued state do not.
func TestChangeAt(t *testing.T) {
	s := New(Options[*obj]{Window: 8})
	before := time.Now()
	for _, e := range relist("5", "a/x@5") {
		s.Apply(t.Context(), e)
	}
	sub := s.Subscribe(t.Context(), SubscribeOptions{Mode: Ordered})
	defer sub.Close()
	s.Apply(t.Context(), applyEv("a/x@6"))
	s.Apply(t.Context(), deleteEv("a/x@7"))
	for _, e := range relist("9", "a/y@8") {
		s.Apply(t.Context(), e)
	}
	after := time.Now()
	var got []string
	for range 5 { // Applied x@5 and Synced (the state), x@6, x@7, then y@8 from the relist
		c, err := sub.Next(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		live := !c.At.IsZero()
		if live && (c.At.Before(before) || c.At.After(after)) {
			t.Errorf("%v %s at %v, not within the test", c.Type, c.ResourceVersion, c.At)
		}
		got = append(got, fmt.Sprintf("%v@%s live=%v", c.Type, c.ResourceVersion, live))
	}
	want := []string{"Applied@5 live=false", "Synced@5 live=false", "Applied@6 live=true", "Deleted@7 live=true", "Applied@9 live=false"}
	if !slices.Equal(got, want) {
		t.Errorf("changes %q, want %q", got, want)
	}
}
