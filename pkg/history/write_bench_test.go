package history

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkWriteBatch is the recorder's cost per revision written: 1 KiB
// ConfigMaps, each changed in a few letters, in batches of 100; in an
// SQLite file, and in PostgreSQL (Debian's, on a Unix socket, without
// fsync: the client's and the server's work, not the disk's).
func BenchmarkWriteBatch(b *testing.B) {
	b.Run("SQLite", func(b *testing.B) { benchmarkWriteBatch(b, filepath.Join(b.TempDir(), "h.db"), 1000, false) })
	b.Run("PostgreSQL", func(b *testing.B) { benchmarkWriteBatch(b, pg.Database(b), 1000, false) })
}

// BenchmarkWriteSpread is BenchmarkWriteBatch in SQLite with the changes
// spread over more objects than the chain heads kept in memory, as when
// a few thousand of 100,000 ConfigMaps change: each revision's head is
// read back from the file (before=false), or the recorder gives the
// object's JSON before the change, which the store checks against its
// sum of the head (before=true, what the recorder does).
func BenchmarkWriteSpread(b *testing.B) {
	for _, before := range []bool{false, true} {
		b.Run(fmt.Sprintf("before=%t", before), func(b *testing.B) {
			benchmarkWriteBatch(b, filepath.Join(b.TempDir(), "h.db"), 4*maxHeads, before)
		})
	}
}

func benchmarkWriteBatch(b *testing.B, location string, objects int, before bool) {
	ctx := context.Background()
	s, err := Open(ctx, location, OpenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	res := "configmaps.v1."
	if _, err := s.Begin(ctx, res, 1); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	texts := make([][]byte, objects)
	docs := make([][]byte, objects)
	for i := range texts {
		texts[i] = randomText(r, 1024)
	}
	rv := uint64(1)
	batch := Batch{}
	write := func(i int) {
		rv++
		doc := fmt.Appendf(nil, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-%d","namespace":"default","resourceVersion":"%d"},"data":{"text":%q}}`, i, rv, texts[i])
		rev := Revision{Namespace: "default", Name: fmt.Sprintf("cm-%d", i), RV: rv, Time: time.Now(), Op: Modified, Object: doc}
		if before {
			rev.Before = docs[i]
		}
		docs[i] = doc
		batch.Revisions = append(batch.Revisions, rev)
		batch.RV = rv
		if len(batch.Revisions) == 100 {
			if err := s.Write(ctx, res, batch); err != nil {
				b.Fatal(err)
			}
			batch = Batch{}
		}
	}
	for i := range objects { // every object's first revision, not timed
		write(i)
	}
	b.ResetTimer()
	for b.Loop() {
		i := r.IntN(objects)
		texts[i][r.IntN(1024)] = 'z'
		write(i)
	}
}
