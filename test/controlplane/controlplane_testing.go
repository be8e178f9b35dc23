package controlplane

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
)

// StartForTest starts a control plane that belongs to t and is stopped in
// t.Cleanup. It skips t under -short and fails it if the control plane does
// not start. Use it for tests that take the API server down or need a clean
// cluster; otherwise prefer Shared, which starts one per test binary.
func StartForTest(t testing.TB, opts Options) *ControlPlane {
	t.Helper()
	skipIfShort(t)
	if opts.Build.Progress == nil {
		opts.Build.Progress = os.Stderr // a cold build takes minutes: say why
	}
	c, err := Start(t.Context(), opts)
	if err != nil {
		t.Fatalf("start control plane: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("stop control plane: %v", err)
		}
	})
	return c
}

// Shared is a control plane started on first use and shared by all tests of
// a test binary, so the binary pays the start-up (a few seconds) once. Declare
// one per test package and stop it from TestMain:
//
//	var cluster controlplane.Shared // Options may be set here
//
//	func TestMain(m *testing.M) { os.Exit(cluster.Run(m)) }
//
//	func TestSomething(t *testing.T) {
//		cp := cluster.Get(t) // skips under -short
//		cs := kubernetes.NewForConfigOrDie(cp.AdminConfig())
//		...
//	}
//
// Tests sharing it should work in their own namespaces. A test that stops or
// restarts kube-apiserver affects every test running at the same time: such
// tests should not call t.Parallel, or should use StartForTest.
type Shared struct {
	// Options are used by the first Get.
	Options Options

	mu      sync.Mutex
	cp      *ControlPlane
	err     error
	started bool
}

// Get returns the shared control plane, starting it on the first call. It
// skips t under -short, and fails t if the control plane did not start (every
// later Get fails the same way without trying again).
func (s *Shared) Get(t testing.TB) *ControlPlane {
	t.Helper()
	skipIfShort(t)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started {
		s.started = true
		opts := s.Options
		if opts.Build.Progress == nil {
			opts.Build.Progress = os.Stderr
		}
		// Not t.Context(): the control plane outlives this test.
		s.cp, s.err = Start(context.Background(), opts)
	}
	if s.err != nil {
		t.Fatalf("start shared control plane: %v", s.err)
	}
	return s.cp
}

// Stop stops the shared control plane if it was started. Later Gets fail.
func (s *Shared) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.started = true
	if s.err == nil {
		s.err = errStopped
	}
	if s.cp == nil {
		return nil
	}
	return s.cp.Stop()
}

// Run runs the tests and then stops the shared control plane; it returns the
// exit code for os.Exit, non-zero also when stopping fails.
func (s *Shared) Run(m *testing.M) int {
	code := m.Run()
	if err := s.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "stop shared control plane: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

func skipIfShort(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a local control plane; skipped with -short")
	}
}

// SharedFleet is a Fleet started on first use and shared by the tests of a
// test binary, as Shared is a control plane.
type SharedFleet struct {
	// Names are the clusters' names; Options are each one's.
	Names   []string
	Options Options

	mu      sync.Mutex
	fleet   *Fleet
	err     error
	started bool
}

// Get returns the shared fleet, starting it on the first call; it skips t
// under -short and fails it if the fleet did not start.
func (s *SharedFleet) Get(t testing.TB) *Fleet {
	t.Helper()
	skipIfShort(t)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started {
		s.started = true
		opts := s.Options
		if opts.Build.Progress == nil {
			opts.Build.Progress = os.Stderr
		}
		s.fleet, s.err = StartFleet(context.Background(), s.Names, opts)
	}
	if s.err != nil {
		t.Fatalf("start shared fleet: %v", s.err)
	}
	return s.fleet
}

// Run runs the tests and then stops the fleet, as Shared.Run.
func (s *SharedFleet) Run(m *testing.M) int {
	code := m.Run()
	if err := s.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "stop shared fleet: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// Stop stops the fleet if it was started; Get fails from then on. For a
// test binary whose TestMain runs a Shared control plane too.
func (s *SharedFleet) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.started = true
	if s.err == nil {
		s.err = errStopped
	}
	if s.fleet == nil {
		return nil
	}
	err := s.fleet.Stop()
	s.fleet = nil
	return err
}
