package store

import (
	"fmt"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// TestApplyAndDispatchDoNotAllocate: a live Apply and its dispatch to a
// subscriber allocate nothing per event in either mode (the store side of
// the per-event NDJSON path; see BenchmarkDispatch). Only decoding the
// event allocates: the object the store keeps (pkg/kube's
// TestDecodeEventAllocs); printing it does not (pkg/output's
// TestJSONDoesNotAllocate).
func TestApplyAndDispatchDoNotAllocate(t *testing.T) {
	for _, mode := range []Mode{Coalescing, Ordered} {
		t.Run(fmt.Sprint(mode), func(t *testing.T) {
			s := New[*obj](Options[*obj]{})
			mustApply(t, s, ev{Type: watch.Init})
			for _, o := range benchObjects(1000) {
				mustApply(t, s, ev{Type: watch.InitApply, Object: o})
			}
			mustApply(t, s, ev{Type: watch.InitDone, ResourceVersion: "1"})
			ctx := t.Context()
			sub := s.Subscribe(ctx, SubscribeOptions{Mode: mode, Wake: make(chan struct{}, 1)})
			for { // the state queued at the join
				if _, ok, _ := sub.TryNext(); !ok {
					break
				}
			}
			versions := []ev{applyEv("ns3/o00003@2"), applyEv("ns3/o00003@3")}
			i := 0
			allocs := testing.AllocsPerRun(1000, func() {
				if err := s.Apply(ctx, versions[i%2]); err != nil {
					t.Fatal(err)
				}
				i++
				if c, ok, _ := sub.TryNext(); !ok || c.Type != Applied {
					t.Fatalf("%v, %v", c.Type, ok)
				}
			})
			if allocs != 0 {
				t.Errorf("Apply and TryNext allocate %v times per event, want 0", allocs)
			}
		})
	}
}
