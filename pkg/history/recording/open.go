package recording

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/rest"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
)

// DefaultPath is the default history of a daemon's identity (a hash of
// its cluster and user, pkg/daemon's Identity): one file per cluster and
// user, under $XDG_STATE_HOME (else ~/.local/state).
func DefaultPath(identity string) (string, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("finding a directory for the history: %w", err)
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "kubectl-reflect", "history", identity+".db"), nil
}

// Locate finds the history a query of cfg's identity reads when none is
// named: the one its running daemon records to, else DefaultPath
// (daemon.HistoryOf, which knows the daemon's files).
type Locate func(cfg *rest.Config) (string, error)

// OpenRecord opens for queries the history at path (a file or a
// postgres:// URL), or, when path is "", the one locate finds for cfg:
// get --at, history, diff, timeline and watch --since.
func OpenRecord(ctx context.Context, cfg *rest.Config, path string, locate Locate) (history.Record, error) {
	if path == "" {
		var err error
		if path, err = locate(cfg); err != nil {
			return nil, err
		}
	}
	return history.Open(ctx, path, history.OpenOptions{ReadOnly: true})
}
