package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestServeSocket: the daemon listens at <identity>.sock too (0600),
// replacing the stale socket a killed daemon left there, and `kubectl reflect get` through it
// asks the API server nothing, printing what it prints without it.
func TestServeSocket(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	createCM(t, cs, ns, "a", nil, "k", "1")
	counted := newCountedServer(t, cp)
	dir, err := os.MkdirTemp("", "kr") // short: a socket's path has a limit
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	first := startServeIn(t, dir, counted.kubeconfig, "configmaps") // to learn the socket's path
	socket := strings.TrimSuffix(first.kubeconfig, ".kubeconfig") + ".sock"
	if err := first.Cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	first.Wait()
	if fi, err := os.Stat(socket); err != nil || fi.Mode().Type() != os.ModeSocket {
		t.Fatalf("the killed daemon's socket %s: %v, want it left behind", socket, err)
	}
	d := startServeIn(t, dir, counted.kubeconfig, "configmaps")
	if fi, err := os.Stat(socket); err != nil || fi.Mode().Type() != os.ModeSocket || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket %s: %v, want a socket 0600 in place of the stale file", socket, err)
	}
	if info, err := os.Stat(filepath.Dir(socket)); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("the socket's directory: %v, want 0700", err)
	}
	d.caughtUp(t, cs)
	args := []string{"get", "cm", "-n", ns, "--kubeconfig", counted.kubeconfig}
	before := len(counted.reads())
	got := runIn(t, dir, args...)
	if reads := counted.reads()[before:]; len(reads) > 0 {
		t.Errorf("get with the daemon asked the API server:\n%s", strings.Join(reads, "\n"))
	}
	if want := runIn(t, dir, append(args, "--no-daemon")...); got != want {
		t.Errorf("with the daemon:\n%q\nwithout:\n%q", got, want)
	}
	if err := d.Cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code := d.Wait(); code != 0 {
		t.Errorf("exit %d after SIGINT, want 0", code)
	}
	if _, err := os.Stat(socket); !os.IsNotExist(err) {
		t.Errorf("the socket stays after the daemon stopped: %v", err)
	}
}
