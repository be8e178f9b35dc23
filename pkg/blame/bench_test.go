package blame

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/blame/blametest"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
)

// BenchmarkBlame is blame's work on one Deployment of 100 revisions in an
// SQLite record of 10,000 and of 1,000,000 revisions (blametest.Record:
// 100 and 10,000 Deployments of about 1.5 KiB, 100 revisions each,
// written in turn so that one object's revisions are spread over the
// file): reading the
// object's revisions (the history's Revisions: the revisions table's key
// starts with the object), its Blame, its Log of a field, and the three
// with the history opened, as the command does. The object's work should
// be the same at both sizes. Building the record of 1,000,000 takes about
// half a minute: -short keeps to 10,000. make bench times the command
// itself on the same records (test/bench's measure_blame.go).
func BenchmarkBlame(b *testing.B) {
	sizes := []int{10_000, 1_000_000}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, size := range sizes {
		path := benchRecord(b, size)
		b.Run(fmt.Sprintf("revisions=%d", size), func(b *testing.B) { benchmarkBlame(b, path) })
	}
}

func benchmarkBlame(b *testing.B, path string) {
	ctx := context.Background()
	s, err := history.OpenSQLite(ctx, path, history.OpenOptions{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	field, _ := ParseField(blametest.Field)
	read := func(s history.Record) []history.Revision {
		revs, err := s.Revisions(ctx, blametest.Resource, blametest.Namespace, blametest.Name(7))
		if err != nil || len(revs) != blametest.PerObject {
			b.Fatalf("%d revisions, %v", len(revs), err)
		}
		return revs
	}
	revs := read(s)
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			read(s)
		}
	})
	b.Run("blame", func(b *testing.B) {
		for b.Loop() {
			if _, err := Blame(revs); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("log", func(b *testing.B) {
		for b.Loop() {
			if len(Log(revs, field)) == 0 {
				b.Fatal("no entry")
			}
		}
	})
	b.Run("open+read+blame+log", func(b *testing.B) {
		for b.Loop() {
			s, err := history.OpenSQLite(ctx, path, history.OpenOptions{ReadOnly: true})
			if err != nil {
				b.Fatal(err)
			}
			revs := read(s)
			if _, err := Blame(revs); err != nil {
				b.Fatal(err)
			}
			Log(revs, field)
			s.Close()
		}
	})
}

// benchRecord writes a record of size revisions, once per process; in
// $BLAME_BENCH_DIR when set, kept there and read again by the next run
// (as blame-SIZE.db: a history the command itself can be timed on).
func benchRecord(b *testing.B, size int) string {
	if path, ok := benchRecords[size]; ok {
		return path
	}
	dir := os.Getenv("BLAME_BENCH_DIR")
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "blame-bench"); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { os.RemoveAll(dir) })
	}
	path := filepath.Join(dir, fmt.Sprintf("blame-%d.db", size))
	if _, err := os.Stat(path); err != nil {
		start := time.Now()
		if err := blametest.Record(context.Background(), path+".tmp", size); err != nil {
			b.Fatal(err)
		}
		if err := os.Rename(path+".tmp", path); err != nil {
			b.Fatal(err)
		}
		b.Logf("a record of %d revisions written in %s", size, time.Since(start).Round(time.Second))
	}
	benchRecords[size] = path
	return path
}

var benchRecords = map[int]string{}
