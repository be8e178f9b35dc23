package e2e

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
)

// cluster is shared by every test of this package; tests that restart
// kube-apiserver start their own.
var cluster controlplane.Shared

// binary is the kubectl-reflect built for this test run.
var binary string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	flag.Parse()
	if testing.Short() { // every test here skips: build nothing
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "kubectl-reflect-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "kubectl-reflect")
	build := exec.Command("go", "build", "-race", "-o", binary, "github.com/kubectl-reflect/kubectl-reflect/cmd/kubectl-reflect")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building kubectl-reflect:", err)
		return 1
	}
	return cluster.Run(m)
}
