package timelinetest

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
)

// Recorded is a new SQLite history in tb's temporary directory holding
// c's cluster, closed when the test ends.
func Recorded(tb testing.TB, c Config) history.Record {
	tb.Helper()
	ctx := context.Background()
	s, err := history.OpenSQLite(ctx, filepath.Join(tb.TempDir(), "history.db"), history.OpenOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	if _, err := Write(ctx, s, c); err != nil {
		tb.Fatal(err)
	}
	return s
}

var (
	filesMu sync.Mutex
	files   = map[Config]string{}
)

// File is the path of a SQLite history of c's cluster, written once per
// process (Cluster3000's takes a minute or so) for benchmarks to open
// read-only as the commands do; it stays in the temporary directory.
func File(tb testing.TB, c Config) string {
	tb.Helper()
	filesMu.Lock()
	defer filesMu.Unlock()
	if path, ok := files[c]; ok {
		return path
	}
	dir, err := os.MkdirTemp("", "timelinetest-")
	if err != nil {
		tb.Fatal(err)
	}
	path := filepath.Join(dir, "history.db")
	stats, err := Record(context.Background(), path, c)
	if err != nil {
		tb.Fatal(err)
	}
	for res, n := range stats {
		tb.Logf("%s: %d revisions", res, n)
	}
	files[c] = path
	return path
}
