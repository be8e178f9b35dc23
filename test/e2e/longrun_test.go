package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestWatchRequestTimeout: --request-timeout bounds watch's requests, not
// its open watch: past several request timeouts it has said nothing, and it
// still prints a live change. kubectl's `get -w` lets the timeout cut its
// watch and exits 0 when it passes.
func TestWatchRequestTimeout(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	createCM(t, cs, ns, "a", nil)

	p := start(t, cp, "watch", "cm", "-n", ns, "-o", "name", "--request-timeout", "1s")
	if got := p.Next(); got != "configmap/a" {
		t.Fatalf("first line %q, want configmap/a", got)
	}
	p.Quiet(5 * time.Second)
	createCM(t, cs, ns, "b", nil)
	if got := p.Next(); got != "configmap/b" {
		t.Errorf("after 5 request timeouts: %q, want configmap/b", got)
	}
	p.Running()
	if s := p.Stderr.String(); s != "" {
		t.Errorf("stderr after 5 request timeouts:\n%s", s)
	}

	out, stderr, code := kubectl(t, cp.AdminKubeconfig(), "get", "cm", "-n", ns, "-w", "--request-timeout", "1s", "-o", "name")
	if code != 0 || out != "configmap/a\nconfigmap/b\n" {
		t.Errorf("kubectl get -w --request-timeout 1s: exit %d, stdout %q, stderr %q; want it to end at the timeout with exit 0", code, out, stderr)
	}
}

// TestWatchMissingName: `watch cm NAME` for a ConfigMap that does not exist
// says so once on stderr and waits; it prints the object when it is
// created. kubectl's `get -w` fails with NotFound instead.
func TestWatchMissingName(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	createCM(t, cs, ns, "other", nil)

	note := `configmaps "nope" not found in namespace ` + ns + `; waiting for it to be created`
	p := start(t, cp, "watch", "cm", "nope", "-n", ns, "-o", "name")
	p.WaitStderr(note)
	createCM(t, cs, ns, "nope", nil)
	if got := p.Next(); got != "configmap/nope" {
		t.Errorf("after creating it: %q, want configmap/nope", got)
	}
	p.Running()
	if s := p.Stderr.String(); s != note+"\n" {
		t.Errorf("stderr %q, want the note once:\n%s", s, note)
	}

	_, kerr, kcode := kubectl(t, cp.AdminKubeconfig(), "get", "cm", "nope-too", "-n", ns, "-w")
	if kcode != 1 || !strings.Contains(kerr, `configmaps "nope-too" not found`) {
		t.Errorf("kubectl get -w of a missing name: exit %d, stderr %q; want NotFound", kcode, kerr)
	}
}
