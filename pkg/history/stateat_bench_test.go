package history

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkStateAt reads the state of 100,000 ConfigMaps of 1 KiB (one
// revision each) from a history: the store's part of get --at and of a
// warm restart; from each object's latest revision (none), from a
// checkpoint before it (the 100 changes after it read too) and from one
// after it (the 100 changes undone); in an SQLite file and in PostgreSQL.
func BenchmarkStateAt(b *testing.B) {
	for _, engine := range []string{"SQLite", "PostgreSQL"} {
		for _, checkpoint := range []string{"none", "before", "after"} {
			b.Run(engine+"/checkpoint="+checkpoint, func(b *testing.B) {
				location := filepath.Join(b.TempDir(), "h.db")
				if engine == "PostgreSQL" {
					location = pg.Database(b)
				}
				benchmarkStateAt(b, location, checkpoint)
			})
		}
	}
}

func benchmarkStateAt(b *testing.B, location, checkpoint string) {
	ctx := context.Background()
	s, err := Open(ctx, location, OpenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const n = 100_000
	s.Begin(ctx, "configmaps.v1.", 1)
	r := rand.New(rand.NewPCG(1, 2))
	batch := Batch{}
	for i := range n {
		rv := uint64(i + 2)
		doc := fmt.Appendf(nil, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-%06d","namespace":"default","resourceVersion":"%d"},"data":{"text":%q}}`, i, rv, randomText(r, 1024))
		batch.Revisions = append(batch.Revisions, Revision{Namespace: "default", Name: fmt.Sprintf("cm-%06d", i), RV: rv, Time: time.Now(), Op: Added, Object: doc, Cells: []byte(`["x",1,"1s"]`)})
		batch.RV = rv
		if len(batch.Revisions) == maxBatch || i == n-1 {
			if err := s.Write(ctx, "configmaps.v1.", batch); err != nil {
				b.Fatal(err)
			}
			batch = Batch{}
		}
	}
	if checkpoint == "before" {
		if err := s.Checkpoint(ctx, "configmaps.v1."); err != nil {
			b.Fatal(err)
		}
	}
	changed := Batch{RV: n + 101}
	for i := range 100 {
		rv := uint64(n + 2 + i)
		doc := fmt.Appendf(nil, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-%06d","namespace":"default","resourceVersion":"%d"},"data":{"text":"changed"}}`, i*997, rv)
		changed.Revisions = append(changed.Revisions, Revision{Namespace: "default", Name: fmt.Sprintf("cm-%06d", i*997), RV: rv, Time: time.Now(), Op: Modified, Object: doc})
	}
	if err := s.Write(ctx, "configmaps.v1.", changed); err != nil {
		b.Fatal(err)
	}
	at := uint64(n + 101)
	if checkpoint == "after" { // the state before the 100 changes, from the checkpoint after them
		if err := s.Checkpoint(ctx, "configmaps.v1."); err != nil {
			b.Fatal(err)
		}
		at = n + 1
	}
	for b.Loop() {
		revs, err := s.StateAt(ctx, "configmaps.v1.", at)
		if err != nil || len(revs) != n {
			b.Fatalf("%d revisions, %v", len(revs), err)
		}
	}
}
