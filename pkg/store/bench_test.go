package store

import (
	"context"
	"fmt"
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
	s := New[*obj](Options[*obj]{})
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
