//go:build unix

package controlplane

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFailedStartLeavesNothing: when a component cannot start, Start
// returns its error with the tail of its log, and removes the temporary
// directory (it used to panic on a nil control plane instead).
func TestFailedStartLeavesNothing(t *testing.T) {
	bin := t.TempDir()
	broken := filepath.Join(bin, "etcd")
	if err := os.WriteFile(broken, []byte("#!/bin/sh\necho 'broken on purpose' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)

	_, err := Start(t.Context(), Options{Binaries: Binaries{Dir: bin, Etcd: broken, APIServer: broken, ControllerManager: broken}})
	if err == nil || !strings.Contains(err.Error(), "broken on purpose") {
		t.Fatalf("Start: %v, want the error with etcd's log", err)
	}
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("left in TMPDIR: %s", e.Name())
	}
}
