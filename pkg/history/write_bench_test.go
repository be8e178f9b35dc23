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
	b.Run("SQLite", func(b *testing.B) { benchmarkWriteBatch(b, filepath.Join(b.TempDir(), "h.db")) })
	b.Run("PostgreSQL", func(b *testing.B) { benchmarkWriteBatch(b, pg.Database(b)) })
}

func benchmarkWriteBatch(b *testing.B, location string) {
	ctx := context.Background()
	s, err := Open(ctx, location, OpenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	s.Begin(ctx, "configmaps.v1.", 1)
	r := rand.New(rand.NewPCG(1, 2))
	texts := make([][]byte, 1000)
	for i := range texts {
		texts[i] = randomText(r, 1024)
	}
	rv := uint64(1)
	batch := Batch{}
	for b.Loop() {
		rv++
		i := int(rv) % len(texts)
		texts[i][r.IntN(1024)] = 'z'
		doc := fmt.Appendf(nil, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-%d","namespace":"default","resourceVersion":"%d"},"data":{"text":%q}}`, i, rv, texts[i])
		batch.Revisions = append(batch.Revisions, Revision{Namespace: "default", Name: fmt.Sprintf("cm-%d", i), RV: rv, Time: time.Now(), Op: Modified, Object: doc})
		batch.RV = rv
		if len(batch.Revisions) == 100 {
			if err := s.Write(ctx, "configmaps.v1.", batch); err != nil {
				b.Fatal(err)
			}
			batch = Batch{}
		}
	}
}
