package testkit

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
)

// Built is what Main built for a test package.
type Built struct {
	// Reflect is kubectl-reflect, built with -race for this run.
	Reflect string
	// ControlPlane are the cached control-plane binaries (kubectl among
	// them).
	ControlPlane controlplane.Binaries
}

// Main is a test package's TestMain body: under -short (every test skips)
// it runs m and builds nothing; otherwise it builds kubectl-reflect (with
// -race) into a temporary directory and the control plane (cached), then
// returns run's exit code, run being given what was built (it usually
// starts a controlplane.Shared and runs m through it).
func Main(m *testing.M, run func(Built) int) int {
	flag.Parse()
	if testing.Short() {
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "kubectl-reflect-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	quickRaceExit()
	var b Built
	if b.Reflect, err = BuildReflect(dir, true); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if b.ControlPlane, err = controlplane.Build(context.Background(), controlplane.BuildOptions{Progress: os.Stderr}); err != nil {
		fmt.Fprintln(os.Stderr, "building the control plane:", err)
		return 1
	}
	return run(b)
}

// quickRaceExit has the -race binaries this process starts exit as soon
// as they are done: the race runtime otherwise sleeps a second at every
// exit (GORACE's atexit_sleep_ms, 1000 by default), which made most of the
// time of the tests that run a command per case. A GORACE that sets it
// is kept.
func quickRaceExit() {
	if v := os.Getenv("GORACE"); !strings.Contains(v, "atexit_sleep_ms") {
		os.Setenv("GORACE", strings.TrimSpace(v+" atexit_sleep_ms=0"))
	}
}

// BuildReflect builds kubectl-reflect (with -race if race) into dir and
// returns its path; the go command's output goes to stderr.
func BuildReflect(dir string, race bool) (string, error) {
	bin := filepath.Join(dir, "kubectl-reflect")
	args := []string{"build", "-o", bin}
	if race {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, "github.com/kubectl-reflect/kubectl-reflect/cmd/kubectl-reflect")...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("building kubectl-reflect: %w", err)
	}
	return bin, nil
}
