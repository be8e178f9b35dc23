package history

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"
)

// TestWALShrinksAfterALargeWrite: one transaction larger than
// walSizeLimit (5,000 revisions of 4 KiB of random letters) grows the
// write-ahead log, and the next write, once SQLite's automatic checkpoint
// has copied it back, truncates the WAL file to the limit. Without the
// limit the WAL stays at the large write's size (23 MB).
func TestWALShrinksAfterALargeWrite(t *testing.T) {
	ctx := context.Background()
	s, path := openTemp(t)
	const res = "configmaps.v1."
	if _, err := s.Begin(ctx, res, 1); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	write := func(rv uint64, objects, size int) {
		t.Helper()
		revs := make([]Revision, objects)
		for i := range revs {
			name := fmt.Sprintf("cm-%d", i)
			revs[i] = Revision{Namespace: "default", Name: name, RV: rv, Time: time.Now(), Op: Added,
				Object: cm(name, rv, string(randomText(r, size)))}
		}
		writeAll(t, s, res, revs...)
	}
	walSize := func() int64 {
		t.Helper()
		fi, err := os.Stat(path + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	write(10, 5000, 4096)
	if n := walSize(); n <= 2*walSizeLimit {
		t.Fatalf("the large write left a WAL of %d bytes; the test needs more than %d", n, 2*walSizeLimit)
	}
	write(11, 1, 16)
	if n := walSize(); n > walSizeLimit {
		t.Errorf("the WAL is %d bytes after the next write, more than the limit of %d", n, walSizeLimit)
	}
}
