package history

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"github.com/kubectl-reflect/kubectl-reflect/test/postgres"
)

// pg is the PostgreSQL server of this test binary, started by the first
// test on that engine.
var pg postgres.Shared

func TestMain(m *testing.M) {
	code := m.Run()
	if err := pg.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "stopping PostgreSQL: %v\n", err)
		code = max(code, 1)
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// opener opens the store a test runs on: the same database at each call
// (after a Close, a restarted daemon's), closed when the test ends.
type opener func(t *testing.T) Record

// onEachEngine runs test once per engine: SQLite, and PostgreSQL (skipped
// where it is not installed, but under CI; see postgres.Shared).
func onEachEngine(t *testing.T, test func(t *testing.T, open opener)) {
	t.Run("SQLite", func(t *testing.T) {
		test(t, openAt(filepath.Join(t.TempDir(), "state", "history.db")))
	})
	t.Run("PostgreSQL", func(t *testing.T) {
		test(t, openAt(pg.Database(t)))
	})
}

func openAt(location string) opener {
	return func(t *testing.T) Record {
		t.Helper()
		s, err := Open(context.Background(), location, OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
}
