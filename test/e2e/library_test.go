package e2e

import (
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/test/testkit"
)

// TestLibraryExample: examples/watchconfigmaps, a program built on pkg/
// alone, watches a namespace's ConfigMaps on the real API server with
// typed events: the one listed, the end of the list, a change, a new one
// and a deletion; it exits 0 on SIGINT.
func TestLibraryExample(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	createCM(t, cs, ns, "a", nil, "k", "v")
	bin := filepath.Join(t.TempDir(), "watchconfigmaps")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/kubectl-reflect/kubectl-reflect/examples/watchconfigmaps").CombinedOutput(); err != nil {
		t.Fatalf("building the example: %v\n%s", err, out)
	}
	p := testkit.StartProc(t, exec.Command(bin, "-kubeconfig", cp.AdminKubeconfig(), "-n", ns))
	if got, want := p.Next(), "APPLIED "+ns+"/a data=1"; got != want {
		t.Fatalf("first line %q, want %q", got, want)
	}
	p.WaitOutLine(`^SYNCED rv=[0-9]+$`)
	updateCM(t, cs, ns, "a", "k2", "v2")
	p.WaitOutLine("^APPLIED " + ns + "/a data=2$")
	createCM(t, cs, ns, "b", nil)
	p.WaitOutLine("^APPLIED " + ns + "/b data=0$")
	deleteCM(t, cs, ns, "a")
	p.WaitOutLine("^DELETED " + ns + "/a$")
	p.Signal(syscall.SIGINT)
	if code := p.Wait(); code != 0 {
		t.Fatalf("exit %d after SIGINT, want 0; stderr:\n%s", code, p.Stderr.String())
	}
}
