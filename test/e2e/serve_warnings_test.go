package e2e

import (
	"strings"
	"testing"
)

// TestServeRepeatsWarnings: the daemon's answers about a deprecated kind
// carry the API server's warning, so that kubectl through the daemon, and
// get through it, print it as they do at the API server.
func TestServeRepeatsWarnings(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	createEndpoints(t, cs, ns, "ep")
	counted := newCountedServer(t, cp)
	dir := t.TempDir()
	d := startServeIn(t, dir, counted.kubeconfig, "endpoints")
	args := []string{"get", "endpoints", "-n", ns}

	want, wantErr, _ := kubectl(t, cp.AdminKubeconfig(), args...)
	if !strings.HasPrefix(wantErr, "Warning: ") {
		t.Fatalf("kubectl at the API server printed no warning: %q", wantErr)
	}
	got, gotErr, _ := kubectl(t, d.kubeconfig, args...)
	if normalizeAge(got) != normalizeAge(want) || gotErr != wantErr {
		t.Errorf("kubectl through the daemon:\n%s%s\nat the API server:\n%s%s", got, gotErr, want, wantErr)
	}

	before := len(counted.reads())
	ours := runIn(t, dir, append(args, "--kubeconfig", counted.kubeconfig)...)
	if reads := counted.reads()[before:]; len(reads) > 0 {
		t.Errorf("get with the daemon asked the API server:\n%s", strings.Join(reads, "\n"))
	}
	assertAsNoDaemon(t, dir, "with the daemon", ours, append(args, "--kubeconfig", counted.kubeconfig)...)
	if ours[1] != wantErr {
		t.Errorf("get with the daemon: stderr %q, want kubectl's %q", ours[1], wantErr)
	}
}
