package store

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// benchObjects returns n objects at rv "1", spread over 10 namespaces.
func benchObjects(n int) []*obj {
	objs := make([]*obj, n)
	for i := range objs {
		objs[i] = &obj{ns: fmt.Sprintf("ns%d", i%10), name: fmt.Sprintf("o%05d", i), rv: "1"}
	}
	return objs
}

func syncedStore(b *testing.B, objs []*obj) *Store[*obj] {
	return syncedStoreWith(b, Options[*obj]{}, objs)
}

func syncedStoreWith(b *testing.B, opts Options[*obj], objs []*obj) *Store[*obj] {
	s := New[*obj](opts)
	mustApply(b, s, ev{Type: watch.Init})
	for _, o := range objs {
		mustApply(b, s, ev{Type: watch.InitApply, Object: o})
	}
	mustApply(b, s, ev{Type: watch.InitDone, ResourceVersion: "1"})
	return s
}

// BenchmarkApply: a live Apply of one object among 20k, with one subscriber
// draining its changes.
func BenchmarkApply(b *testing.B) {
	s := syncedStore(b, benchObjects(20_000))
	ctx, cancel := context.WithCancel(context.Background())
	sub := s.Subscribe(ctx, SubscribeOptions{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			if _, err := sub.Next(ctx); err != nil {
				return
			}
		}
	})
	// Two versions of one object, alternated so every Apply is a change.
	versions := []ev{applyEv("ns3/o00003@2"), applyEv("ns3/o00003@3")}

	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := s.Apply(ctx, versions[i%2]); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	cancel()
	wg.Wait()
}

// BenchmarkList20k: List of 20k objects (what get prints from), in key
// order (a sort) and in the list's order (Options.ListOrder: a walk of the
// list's keys, what get uses).
func BenchmarkList20k(b *testing.B) {
	for _, listOrder := range []bool{false, true} {
		b.Run(fmt.Sprintf("ListOrder=%v", listOrder), func(b *testing.B) {
			s := syncedStoreWith(b, Options[*obj]{ListOrder: listOrder}, benchObjects(20_000))
			b.ReportAllocs()
			for b.Loop() {
				if len(s.List(nil)) != 20_000 {
					b.Fatal("short list")
				}
			}
		})
	}
}

// BenchmarkRelist20k: a relist of 20k objects where nothing changed (fresh
// copies with the same resourceVersions, as decoded from a new LIST).
func BenchmarkRelist20k(b *testing.B) {
	objs := benchObjects(20_000)
	s := syncedStore(b, objs)
	relisted := benchObjects(len(objs))
	ctx := context.Background()

	b.ReportAllocs()
	for b.Loop() {
		if err := s.Apply(ctx, ev{Type: watch.Init}); err != nil {
			b.Fatal(err)
		}
		for _, o := range relisted {
			if err := s.Apply(ctx, ev{Type: watch.InitApply, Object: o}); err != nil {
				b.Fatal(err)
			}
		}
		if err := s.Apply(ctx, ev{Type: watch.InitDone, ResourceVersion: "1"}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if got, _ := s.Get(KeyOf(objs[0])); got != objs[0] {
		b.Fatal("an unchanged object was replaced by its relisted copy")
	}
}

// BenchmarkDispatch: a live Apply among 20k objects, queued for every
// subscriber and read back by each (in the writer's goroutine, so that the
// queues stay short and the numbers hold the dispatch alone), per mode and
// number of subscribers. Both modes must stay allocation-free.
func BenchmarkDispatch(b *testing.B) {
	for _, mode := range []Mode{Coalescing, Ordered} {
		for _, n := range []int{1, 8} {
			b.Run(fmt.Sprintf("%v/%dsubs", mode, n), func(b *testing.B) {
				s := syncedStore(b, benchObjects(20_000))
				ctx := b.Context()
				wake := make(chan struct{}, 1)
				subs := make([]*Subscription[*obj], n)
				for i := range subs {
					subs[i] = s.Subscribe(ctx, SubscribeOptions{Mode: mode, Wake: wake})
					for { // the state queued at the join
						if _, ok, _ := subs[i].TryNext(); !ok {
							break
						}
					}
				}
				// Two versions of ten objects: every Apply is a change.
				var versions []ev
				for v := range 2 {
					for k := range 10 {
						versions = append(versions, applyEv(fmt.Sprintf("ns%d/o%05d@%d", k, k, 2+v)))
					}
				}

				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					if err := s.Apply(ctx, versions[i%len(versions)]); err != nil {
						b.Fatal(err)
					}
					for _, sub := range subs {
						if c, ok, _ := sub.TryNext(); !ok || c.Type != Applied {
							b.Fatalf("%v, %v", c.Type, ok)
						}
					}
				}
			})
		}
	}
}

// BenchmarkFirstList: an empty store's first list, per object, at 20k and
// 100k objects (each beside 1 KiB of its own, as decoded objects are spread
// over the heap), with nobody listening (get's store, the benchmarks'
// in-process caches) and with one subscriber draining its changes (watch's),
// and a list whose size is known (sized: a state restored from a record,
// whose Init says how many objects follow). Per object, the cost must not
// grow with the number of objects.
func BenchmarkFirstList(b *testing.B) {
	for _, n := range []int{20_000, 100_000} {
		objs := benchObjects(n)
		spread := make([][]byte, n)
		for i := range spread {
			spread[i] = make([]byte, 1024)
		}
		for _, c := range []struct{ subscribed, sized bool }{{false, false}, {true, false}, {false, true}} {
			subscribed, size := c.subscribed, 0
			if c.sized {
				size = n
			}
			b.Run(fmt.Sprintf("objects=%d/subscribed=%v/sized=%v", n, subscribed, c.sized), func(b *testing.B) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				for b.Loop() {
					s := New[*obj](Options[*obj]{})
					var sub *Subscription[*obj]
					if subscribed {
						sub = s.Subscribe(ctx, SubscribeOptions{})
					}
					mustApply(b, s, ev{Type: watch.Init, Size: size})
					for _, o := range objs {
						mustApply(b, s, ev{Type: watch.InitApply, Object: o})
					}
					mustApply(b, s, ev{Type: watch.InitDone, ResourceVersion: "1"})
					if sub != nil {
						sub.Close() // its queue goes with it, not kept for the next runs
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/object")
			})
		}
		runtime.KeepAlive(spread)
	}
}
