//go:build linux

package demo

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
	"github.com/kubectl-reflect/kubectl-reflect/test/testkit"
)

// binDir holds kubectl-reflect, built for this run, and kubectl, the one
// built with the control plane: the script gets it as DEMO_BIN_DIR and
// first on PATH.
var binDir string

// controlPlaneBinaries are the cached control-plane binaries.
var controlPlaneBinaries controlplane.Binaries

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	flag.Parse()
	if testing.Short() { // every test here skips: build nothing
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "kubectl-reflect-demo-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if binDir, err = prepareBinDir(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

func prepareBinDir(dir string) (string, error) {
	bin := filepath.Join(dir, "bin")
	if _, err := testkit.BuildReflect(bin, false); err != nil { // as make demo runs it
		return "", err
	}
	bins, err := controlplane.Build(context.Background(), controlplane.BuildOptions{Progress: os.Stderr})
	if err != nil {
		return "", fmt.Errorf("building the control plane: %w", err)
	}
	controlPlaneBinaries = bins
	if err := os.Symlink(bins.Kubectl, filepath.Join(bin, "kubectl")); err != nil {
		return "", err
	}
	return bin, nil
}
