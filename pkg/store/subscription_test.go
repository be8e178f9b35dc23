package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// TestCoalescing: a subscriber that saw the first list does not read while
// the events happen, then drains once.
func TestCoalescing(t *testing.T) {
	tests := []struct {
		name   string
		first  []string // the first list, seen by the subscriber
		events []ev     // applied while it does not read
		want   []string
	}{{
		name:   "two updates: the latest, with the Old seen before both",
		first:  []string{"ns/a@1"},
		events: script(applyEv("ns/a@2"), applyEv("ns/a@3")),
		want:   []string{"Applied ns/a@3 old=1"},
	}, {
		name:   "created then deleted: Deleted without Old",
		events: script(applyEv("ns/b@2"), deleteEv("ns/b@3")),
		want:   []string{"Deleted ns/b@3"},
	}, {
		name:   "created, updated, deleted, recreated: Applied without Old",
		events: script(applyEv("ns/b@2"), applyEv("ns/b@3"), deleteEv("ns/b@4"), applyEv("ns/b@5")),
		want:   []string{"Applied ns/b@5"},
	}, {
		name:   "deleted then recreated: Applied with the Old seen",
		first:  []string{"ns/a@1"},
		events: script(deleteEv("ns/a@2"), applyEv("ns/a@3")),
		want:   []string{"Applied ns/a@3 old=1"},
	}, {
		name:   "updated then deleted: Deleted with the Old seen",
		first:  []string{"ns/a@1"},
		events: script(applyEv("ns/a@2"), deleteEv("ns/a@3")),
		want:   []string{"Deleted ns/a@3 old=1"},
	}, {
		name:   "a coalesced change keeps its first place in the queue",
		first:  []string{"ns/a@1", "ns/b@1"},
		events: script(applyEv("ns/a@2"), applyEv("ns/b@2"), applyEv("ns/a@3"), applyEv("ns/c@4")),
		want:   []string{"Applied ns/a@3 old=1", "Applied ns/b@2 old=1", "Applied ns/c@4"},
	}, {
		name:   "relist changes coalesce with pending live changes",
		first:  []string{"ns/a@1", "ns/b@1"},
		events: script(applyEv("ns/a@2"), relist("4", "ns/a@3", "ns/c@4")),
		want:   []string{"Applied ns/a@3 old=1", "Deleted ns/b@1 old=1", "Applied ns/c@4"},
	}, {
		name:   "an update undone by a relist: one Deleted of the last state, Old as seen",
		first:  []string{"ns/a@1"},
		events: script(applyEv("ns/a@2"), relist("3")),
		want:   []string{"Deleted ns/a@2 old=1"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New[*obj](Options[*obj]{})
			mustApply(t, s, relist("1", tt.first...)...)
			sub := s.Subscribe(t.Context(), SubscribeOptions{})
			defer sub.Close()
			drain(t, sub)
			mustApply(t, s, tt.events...)
			if entries, pending := queued(sub); pending > 3 || entries > 3 {
				t.Errorf("queue holds %d entries, %d pending; want at most one per key", entries, pending)
			}
			if d := diffStrings(describeAll(drain(t, sub)), tt.want); d != "" {
				t.Errorf("notifications differ:%s", d)
			}
		})
	}
}

func TestLateJoinerGetsStateSortedThenSyncedThenLive(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			s := New[*obj](Options[*obj]{})
			mustApply(t, s, relist("5", "b/x@1", "a/y@2", "cluster@3", "a/x@4")...)
			mustApply(t, s, applyEv("b/x@5"))

			sub := s.Subscribe(t.Context(), SubscribeOptions{Mode: mode})
			defer sub.Close()
			want := []string{"Applied a/x@4", "Applied a/y@2", "Applied b/x@5", "Applied cluster@3", "Synced"}
			if d := diffStrings(describeAll(drain(t, sub)), want); d != "" {
				t.Errorf("late join:%s", d)
			}
			mustApply(t, s, applyEv("a/y@6"), deleteEv("a/x@7"), applyEv("c/new@8"))
			want = []string{"Applied a/y@6 old=2", "Deleted a/x@7 old=4", "Applied c/new@8"}
			if d := diffStrings(describeAll(drain(t, sub)), want); d != "" {
				t.Errorf("live changes after the late join:%s", d)
			}
		})
	}
}

func TestEarlyJoinerGetsFirstListThenSynced(t *testing.T) {
	s := New[*obj](Options[*obj]{})
	sub := s.Subscribe(t.Context(), SubscribeOptions{})
	defer sub.Close()
	mustApply(t, s, ev{Type: watch.Init}, ev{Type: watch.InitApply, Object: mk("ns/b@1")})
	if got := drain(t, sub); len(got) != 0 {
		t.Fatalf("notified before the first InitDone: %q", describeAll(got))
	}
	mustApply(t, s, ev{Type: watch.InitApply, Object: mk("ns/a@2")}, ev{Type: watch.InitDone, ResourceVersion: "2"})
	mustApply(t, s, applyEv("ns/c@3"))
	want := []string{"Applied ns/b@1", "Applied ns/a@2", "Synced", "Applied ns/c@3"}
	if d := diffStrings(describeAll(drain(t, sub)), want); d != "" {
		t.Errorf("early joiner:%s", d)
	}
}

// TestJoinDuringRelist: a subscriber that joins while a relist is buffered
// is queued the old state; the relist's diff then coalesces into it, so a
// subscriber that reads only afterwards never sees the old versions.
func TestJoinDuringRelist(t *testing.T) {
	tests := []struct {
		name      string
		readFirst bool // read the queued state before InitDone
		want      []string
	}{{
		name:      "reads before the swap",
		readFirst: true,
		want: []string{"Applied ns/a@1", "Applied ns/b@1", "Synced",
			"Deleted ns/b@1 old=1", "Applied ns/a@2 old=1"},
	}, {
		name: "reads after the swap",
		want: []string{"Applied ns/a@2", "Deleted ns/b@1", "Synced"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New[*obj](Options[*obj]{})
			mustApply(t, s, relist("1", "ns/a@1", "ns/b@1")...)
			mustApply(t, s, ev{Type: watch.Init}, ev{Type: watch.InitApply, Object: mk("ns/a@2")})
			sub := s.Subscribe(t.Context(), SubscribeOptions{})
			defer sub.Close()
			var got []Change[*obj]
			if tt.readFirst {
				got = drain(t, sub)
			}
			mustApply(t, s, ev{Type: watch.InitDone, ResourceVersion: "2"})
			got = append(got, drain(t, sub)...)
			if d := diffStrings(describeAll(got), tt.want); d != "" {
				t.Errorf("join during relist:%s", d)
			}
			v := newView()
			for _, c := range got {
				if err := v.apply(c); err != nil {
					t.Fatal(err)
				}
			}
			if d := v.equal(s); d != "" {
				t.Errorf("view differs from the store:%s", d)
			}
		})
	}
}

func TestDeletesReachEverySubscriber(t *testing.T) {
	s := New[*obj](Options[*obj]{})
	early := s.Subscribe(t.Context(), SubscribeOptions{})
	defer early.Close()
	mustApply(t, s, relist("1", "ns/a@1", "ns/b@1", "ns/c@1")...)
	late1, late2 := s.Subscribe(t.Context(), SubscribeOptions{}), s.Subscribe(t.Context(), SubscribeOptions{})
	defer late1.Close()
	defer late2.Close()
	subs := []*Subscription[*obj]{early, late1, late2}
	for _, sub := range subs {
		drain(t, sub)
	}

	mustApply(t, s, deleteEv("ns/a@2"))       // live
	mustApply(t, s, relist("3", "ns/c@1")...) // ns/b vanished while away
	mustApply(t, s, applyEv("ns/d@4"))        // created and
	mustApply(t, s, relist("5", "ns/c@1")...) // gone again
	want := []string{"Deleted ns/a@2 old=1", "Deleted ns/b@1 old=1", "Deleted ns/d@4"}
	for i, sub := range subs {
		if d := diffStrings(describeAll(drain(t, sub)), want); d != "" {
			t.Errorf("subscriber %d:%s", i, d)
		}
	}
}

// TestOverflowResyncs: with a small QueueLimit, a stuck subscriber facing
// many distinct deletions gets Resync, the current state, then Synced.
func TestOverflowResyncs(t *testing.T) {
	s := New[*obj](Options[*obj]{QueueLimit: 8})
	mustApply(t, s, relist("1", "base/a@1", "base/b@1", "base/c@1")...)
	sub := s.Subscribe(t.Context(), SubscribeOptions{})
	defer sub.Close()

	rv, most := 1, s.Len()
	next := func() string { rv++; return strconv.Itoa(rv) }
	for i := range 200 {
		name := fmt.Sprintf("tmp/o%03d", i)
		mustApply(t, s, applyEv(name+"@"+next()))
		most = max(most, s.Len())
		if i%40 != 0 { // keep a few, delete the rest
			mustApply(t, s, deleteEv(name+"@"+next()))
		}
		// Bounded by QueueLimit, give or take one full state (what a join or
		// a resync queues) and a marker; never by the 200 objects seen.
		if entries, _ := queued(sub); entries > 8+most+1 {
			t.Fatalf("after %d objects the queue holds %d entries; QueueLimit is 8, the store held at most %d",
				i, entries, most)
		}
	}
	mustApply(t, s, applyEv("base/b@"+next()), deleteEv("base/c@"+next()))

	got := drain(t, sub)
	want := []string{"Resync"}
	for _, o := range s.List(nil) {
		want = append(want, "Applied "+o.String())
	}
	want = append(want, "Synced")
	if d := diffStrings(describeAll(got), want); d != "" {
		t.Fatalf("after overflow:%s", d)
	}
	v := newView()
	for _, c := range got {
		if err := v.apply(c); err != nil {
			t.Fatal(err)
		}
	}
	if d := v.equal(s); d != "" {
		t.Errorf("view rebuilt from the resync differs from the store:%s", d)
	}

	// Back to normal afterwards.
	mustApply(t, s, applyEv("base/a@"+next()))
	if got := describeAll(drain(t, sub)); len(got) != 1 || got[0] != "Applied base/a@"+strconv.Itoa(rv)+" old=1" {
		t.Errorf("after the resync: %q", got)
	}
}

// TestStuckSubscriberBlocksNobody: 100k changes with one subscriber that
// never reads and one that does. The writer finishes promptly, the active
// subscriber ends with the store's state, the stuck one's queue holds at
// most one entry per key, and when it finally reads it is consistent too.
func TestStuckSubscriberBlocksNobody(t *testing.T) {
	const keys, changes = 1000, 100_000
	s := New[*obj](Options[*obj]{})
	var first []string
	for i := range keys {
		first = append(first, fmt.Sprintf("ns%d/o%d@0", i%7, i))
	}
	mustApply(t, s, relist("0", first...)...)

	ctx := t.Context()
	stuck, active := s.Subscribe(ctx, SubscribeOptions{}), s.Subscribe(ctx, SubscribeOptions{})
	defer stuck.Close()
	defer active.Close()
	sentinel := Key{"zzz", "done"}

	result := make(chan *view, 1)
	go func() {
		defer close(result)
		v := newView()
		for {
			c, err := active.Next(ctx)
			if err != nil {
				t.Errorf("active Next: %v", err)
				return
			}
			if err := v.apply(c); err != nil {
				t.Errorf("active subscriber: %v", err)
				return
			}
			if c.Type == Applied && c.Key == sentinel {
				result <- v
				return
			}
		}
	}()

	start := time.Now()
	present := make([]bool, keys)
	for i := range present {
		present[i] = true
	}
	for i := 1; i <= changes; i++ {
		k := (i * 7919) % keys
		spec := fmt.Sprintf("ns%d/o%d@%d", k%7, k, i)
		if i%5 == 0 && present[k] {
			mustApply(t, s, deleteEv(spec))
		} else {
			mustApply(t, s, applyEv(spec))
		}
		present[k] = i%5 != 0 || !present[k]
	}
	mustApply(t, s, applyEv(fmt.Sprintf("zzz/done@%d", changes+1)))
	elapsed := time.Since(start)
	t.Logf("writer: %d changes in %v", changes, elapsed)
	if elapsed > 30*time.Second {
		t.Errorf("writer took %v for %d changes", elapsed, changes)
	}

	select {
	case v := <-result:
		if v == nil {
			t.FailNow()
		}
		if d := v.equal(s); d != "" {
			t.Errorf("active subscriber's view differs from the store:%s", d)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("active subscriber did not receive the last change")
	}

	entries, pending := queued(stuck)
	t.Logf("stuck subscriber: %d entries, %d pending", entries, pending)
	if pending > keys+1 || entries > keys+2 { // one per key, the sentinel, Synced
		t.Errorf("stuck queue holds %d entries, %d pending; want at most %d", entries, pending, keys+2)
	}
	v := newView()
	for _, c := range drain(t, stuck) {
		if err := v.apply(c); err != nil {
			t.Fatalf("stuck subscriber: %v", err)
		}
	}
	if d := v.equal(s); d != "" {
		t.Errorf("stuck subscriber's final view differs from the store:%s", d)
	}
}

// TestStuckQueueIsOnePerKey: many updates to the same 10 keys leave at most
// 10 pending changes (plus the Synced marker) for a subscriber that never
// reads.
func TestStuckQueueIsOnePerKey(t *testing.T) {
	s := New[*obj](Options[*obj]{QueueLimit: 64})
	var first []string
	for i := range 10 {
		first = append(first, fmt.Sprintf("ns/k%d@0", i))
	}
	mustApply(t, s, relist("0", first...)...)
	stuck := s.Subscribe(t.Context(), SubscribeOptions{})
	defer stuck.Close()

	for i := 1; i <= 20_000; i++ {
		spec := fmt.Sprintf("ns/k%d@%d", i%10, i)
		if i%3 == 0 {
			mustApply(t, s, deleteEv(spec))
		} else {
			mustApply(t, s, applyEv(spec))
		}
	}
	entries, pending := queued(stuck)
	if pending > 10 || entries > 11 {
		t.Errorf("queue holds %d entries, %d pending; want at most 10 changes and Synced", entries, pending)
	}
	capOrder, resync := queueCap(stuck)
	if capOrder > 32 || resync {
		t.Errorf("queue capacity %d, resync %v; want a small queue and no resync", capOrder, resync)
	}
}

// TestSlowReaderQueueDoesNotGrow: a reader that keeps up only just (always
// one or two changes behind) reuses its queue instead of growing it.
func TestSlowReaderQueueDoesNotGrow(t *testing.T) {
	s := New[*obj](Options[*obj]{})
	mustApply(t, s, relist("0", "ns/a@0", "ns/b@0")...)
	sub := s.Subscribe(t.Context(), SubscribeOptions{})
	defer sub.Close()
	drain(t, sub)
	v := newView()
	for _, o := range s.List(nil) {
		v.items[KeyOf(o)] = o
	}
	for i := 1; i <= 50_000; i++ {
		mustApply(t, s, applyEv(fmt.Sprintf("ns/%c@%d", 'a'+i%2, i)))
		if i%2 == 0 {
			if err := v.apply(next(t, sub)); err != nil {
				t.Fatal(err)
			}
		}
	}
	capOrder, _ := queueCap(sub)
	if capOrder > 16 {
		t.Errorf("queue capacity grew to %d with at most 2 pending", capOrder)
	}
	for _, c := range drain(t, sub) {
		if err := v.apply(c); err != nil {
			t.Fatal(err)
		}
	}
	if d := v.equal(s); d != "" {
		t.Errorf("view differs:%s", d)
	}
}

// TestCloseEndsSubscription: Close wakes a Next blocked on an empty queue
// with ErrClosed, leaves the store and is idempotent, in both modes.
func TestCloseEndsSubscription(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := New[*obj](Options[*obj]{})
				mustApply(t, s, relist("1", "ns/a@1")...)
				sub := s.Subscribe(context.Background(), SubscribeOptions{Mode: mode})
				if subCount(s) != 1 {
					t.Fatalf("store has %d subscriptions, want 1", subCount(s))
				}

				blocked := make(chan error, 1)
				drain(t, sub)
				go func() {
					_, err := sub.Next(context.Background())
					blocked <- err
				}()
				synctest.Wait() // Next waits for a change
				select {
				case err := <-blocked:
					t.Fatalf("Next returned %v with nothing queued", err)
				default:
				}
				sub.Close()
				synctest.Wait()
				select {
				case err := <-blocked:
					if !errors.Is(err, ErrClosed) {
						t.Errorf("blocked Next after Close = %v, want ErrClosed", err)
					}
				default:
					t.Fatal("Close did not wake a blocked Next")
				}

				sub.Close() // idempotent
				mustApply(t, s, script(applyEv("ns/a@2"), deleteEv("ns/a@3"), relist("4", "ns/b@4"))...)
				if _, err := sub.Next(context.Background()); !errors.Is(err, ErrClosed) {
					t.Errorf("Next after Close = %v, want ErrClosed", err)
				}
				if subCount(s) != 0 {
					t.Errorf("store still has %d subscriptions after Close", subCount(s))
				}
			})
		})
	}
}

func TestCloseDropsPendingChanges(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			s := New[*obj](Options[*obj]{})
			mustApply(t, s, relist("1", "ns/a@1", "ns/b@1")...)
			sub := s.Subscribe(t.Context(), SubscribeOptions{Mode: mode})
			sub.Close()
			if _, err := sub.Next(context.Background()); !errors.Is(err, ErrClosed) {
				t.Errorf("Next with changes pending after Close = %v, want ErrClosed", err)
			}
			if _, _, err := sub.TryNext(); !errors.Is(err, ErrClosed) {
				t.Errorf("TryNext with changes pending after Close = %v, want ErrClosed", err)
			}
		})
	}
}

func TestSubscribeContextEndsSubscription(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := New[*obj](Options[*obj]{})
		mustApply(t, s, relist("1")...)
		ctx, cancel := context.WithCancel(context.Background())
		sub := s.Subscribe(ctx, SubscribeOptions{})
		drain(t, sub)
		blocked := make(chan error, 1)
		go func() {
			_, err := sub.Next(context.Background())
			blocked <- err
		}()
		unrelated := s.Subscribe(t.Context(), SubscribeOptions{Mode: Ordered})
		if c := next(t, unrelated); c.Type != Synced { // an unrelated subscriber still works
			t.Fatalf("unrelated subscriber got %v", describe(c))
		}
		cancel()
		synctest.Wait() // the AfterFunc has run and Next has returned
		select {
		case err := <-blocked:
			if !errors.Is(err, ErrClosed) {
				t.Errorf("Next after the subscription's ctx ended = %v, want ErrClosed", err)
			}
		default:
			t.Fatal("canceling the subscription's ctx did not wake Next")
		}
		if n := subCount(s); n != 1 {
			t.Errorf("%d subscriptions after the cancel, want the unrelated one", n)
		}

		// A ctx that has already ended gives a subscription that is closed at once.
		sub2 := s.Subscribe(ctx, SubscribeOptions{})
		synctest.Wait()
		if n := subCount(s); n != 1 {
			t.Errorf("%d subscriptions after subscribing with an ended ctx, want the unrelated one", n)
		}
		if _, err := sub2.Next(context.Background()); !errors.Is(err, ErrClosed) {
			t.Errorf("Next on a subscription made with an ended ctx = %v, want ErrClosed", err)
		}
	})
}

func TestNextHonoursItsContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := New[*obj](Options[*obj]{})
		sub := s.Subscribe(t.Context(), SubscribeOptions{})
		defer sub.Close()

		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
		defer cancel()
		if _, err := sub.Next(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Next with nothing queued = %v, want DeadlineExceeded", err)
		}
		canceled, cancel2 := context.WithCancel(t.Context())
		cancel2()
		if _, err := sub.Next(canceled); !errors.Is(err, context.Canceled) {
			t.Errorf("Next with a canceled ctx = %v, want Canceled", err)
		}
		// The subscription outlives Next's ctx.
		mustApply(t, s, relist("1", "ns/a@1")...)
		if c := next(t, sub); describe(c) != "Applied ns/a@1" {
			t.Errorf("Next after an earlier ctx ended = %v", describe(c))
		}
		if subCount(s) != 1 {
			t.Errorf("store has %d subscriptions, want 1", subCount(s))
		}
	})
}

// TestConcurrentReadersAndWriter runs under -race: one writer doing live
// changes and relists, readers calling every read method, and subscribers
// of both modes coming and going (Close or ctx cancel) while checking what
// they see.
func TestConcurrentReadersAndWriter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const keys, ops = 200, 5000
		s := New[*obj](Options[*obj]{})
		ctx := t.Context()
		running, stopAll := context.WithCancel(ctx)
		defer stopAll()
		var wg sync.WaitGroup
		var subscriptions atomic.Int64

		for r := range 4 {
			wg.Go(func() {
				for i := 0; ; i++ {
					if running.Err() != nil {
						return
					}
					k := Key{fmt.Sprintf("ns%d", i%3), fmt.Sprintf("o%d", (i*31+r)%keys)}
					if o, ok := s.Get(k); ok && KeyOf(o) != k {
						t.Errorf("Get(%v) = %v", k, o)
					}
					list := s.List(nil)
					for j := 1; j < len(list); j++ {
						if CompareKeys(KeyOf(list[j-1]), KeyOf(list[j])) >= 0 {
							t.Errorf("List not sorted at %d", j)
							break
						}
					}
					_, _ = s.Len(), s.ResourceVersion()
					select {
					case <-s.Synced():
					default:
					}
					time.Sleep(50 * time.Microsecond) // leave the lock some air
				}
			})
		}
		for r := range 4 {
			wg.Go(func() {
				for i := 0; ; i++ {
					if running.Err() != nil {
						return
					}
					subCtx, cancel := context.WithCancel(ctx)
					sub := s.Subscribe(subCtx, SubscribeOptions{Mode: modes[r%2]})
					subscriptions.Add(1)
					v := newView()
					live := 0 // changes read after Synced
					for live < 5+10*r {
						c, err := sub.Next(running)
						if err != nil {
							break
						}
						if err := v.apply(c); err != nil {
							t.Errorf("subscriber: %v", err)
							break
						}
						if v.synced > 0 {
							live++
						}
					}
					if i%2 == 0 {
						sub.Close()
					}
					cancel()
				}
			})
		}

		// One long-lived subscriber checks the whole run.
		long := s.Subscribe(ctx, SubscribeOptions{})
		defer long.Close()
		sentinel := Key{"zzz", "done"}
		longView := make(chan *view, 1)
		go func() {
			defer close(longView)
			v := newView()
			for {
				c, err := long.Next(ctx)
				if err != nil {
					t.Errorf("long subscriber: %v", err)
					return
				}
				if err := v.apply(c); err != nil {
					t.Errorf("long subscriber: %v", err)
					return
				}
				if c.Key == sentinel {
					longView <- v
					return
				}
			}
		}()

		spec := func(k, rv int) string { return fmt.Sprintf("ns%d/o%d@%d", k%3, k, rv) }
		var first []string
		for k := range keys / 2 {
			first = append(first, spec(k, 0))
		}
		mustApply(t, s, relist("0", first...)...)
		model := map[int]int{} // key -> rv
		for k := range keys / 2 {
			model[k] = 0
		}
		for i := 1; i <= ops; i++ {
			k := (i * 7) % keys
			switch {
			case i%500 == 0: // relist: every third object changes, one in ten vanishes
				var list []string
				for k := range model {
					switch {
					case k%10 == i%10:
						delete(model, k)
						continue
					case k%3 == 0:
						model[k] = i
					}
					list = append(list, spec(k, model[k]))
				}
				mustApply(t, s, relist(strconv.Itoa(i), list...)...)
			case i%4 == 0 && hasKey(model, k):
				delete(model, k)
				mustApply(t, s, deleteEv(spec(k, i)))
			default:
				model[k] = i
				mustApply(t, s, applyEv(spec(k, i)))
			}
		}
		mustApply(t, s, applyEv(fmt.Sprintf("zzz/done@%d", ops+1)))
		stopAll()
		wg.Wait()

		if v := <-longView; v != nil {
			if d := v.equal(s); d != "" {
				t.Errorf("long subscriber's view differs from the store:%s", d)
			}
		}
		if got, want := s.Len(), len(model)+1; got != want {
			t.Errorf("Len() = %d, want %d", got, want)
		}
		t.Logf("%d short-lived subscriptions", subscriptions.Load())
		long.Close()
		synctest.Wait() // the cancelled subscriptions' context.AfterFunc have run
		if n := subCount(s); n != 0 {
			t.Errorf("%d subscription(s) left in the store", n)
		}
	})
}

func hasKey(m map[int]int, k int) bool { _, ok := m[k]; return ok }

// afterFuncCtx is a context that counts the AfterFunc registrations still
// alive on it, the way a long-lived parent context holds them.
type afterFuncCtx struct {
	done chan struct{}
	mu   sync.Mutex
	live int
}

func (c *afterFuncCtx) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c *afterFuncCtx) Done() <-chan struct{}       { return c.done }
func (c *afterFuncCtx) Err() error                  { return nil }
func (c *afterFuncCtx) Value(any) any               { return nil }

func (c *afterFuncCtx) AfterFunc(func()) func() bool {
	c.mu.Lock()
	c.live++
	c.mu.Unlock()
	var once sync.Once
	return func() bool {
		stopped := false
		once.Do(func() {
			c.mu.Lock()
			c.live--
			c.mu.Unlock()
			stopped = true
		})
		return stopped
	}
}

// TestCloseReleasesContextRegistration: Close must undo Subscribe's
// context.AfterFunc, or a long-lived ctx (a server's) keeps every closed
// subscription, and the store it points to, reachable for ever.
func TestCloseReleasesContextRegistration(t *testing.T) {
	s := New[*obj](Options[*obj]{})
	ctx := &afterFuncCtx{done: make(chan struct{})}
	for range 100 {
		s.Subscribe(ctx, SubscribeOptions{}).Close()
	}
	ctx.mu.Lock()
	defer ctx.mu.Unlock()
	if ctx.live != 0 {
		t.Errorf("%d closed subscriptions are still registered on the subscribe ctx", ctx.live)
	}
}

// TestResyncMakesProgressWhenStoreExceedsQueueLimit: with a QueueLimit
// smaller than the store, a late joiner (or a resync) is queued the whole
// state at once; a single fresh change before it has read all of it drops
// the queue again. A reader that is one change behind never reaches Synced.
func TestResyncMakesProgressWhenStoreExceedsQueueLimit(t *testing.T) {
	s := New[*obj](Options[*obj]{QueueLimit: 8})
	var first []string
	for i := range 20 {
		first = append(first, fmt.Sprintf("ns/o%02d@0", i))
	}
	mustApply(t, s, relist("0", first...)...)
	sub := s.Subscribe(t.Context(), SubscribeOptions{})
	defer sub.Close()
	v := newView()
	for i := 1; i <= 200; i++ {
		c := next(t, sub)
		if err := v.apply(c); err != nil {
			t.Fatal(err)
		}
		if c.Type == Synced { // the changes made while reading follow it
			for _, c := range drain(t, sub) {
				if err := v.apply(c); err != nil {
					t.Fatal(err)
				}
			}
			if d := v.equal(s); d != "" {
				t.Errorf("view differs from the store:%s", d)
			}
			return
		}
		if c.Type == Applied { // the writer touches what was just read
			mustApply(t, s, applyEv(fmt.Sprintf("%s/%s@%d", c.Key.Namespace, c.Key.Name, i)))
		}
	}
	t.Fatalf("no Synced after 200 reads (%d resyncs)", v.resyncs)
}
