package e2e

import (
	"context"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
)

// warmDiscovery runs `get` once with cacheDir as --cache-dir and
// server as --server ("" for the kubeconfig's), so that later runs resolve
// kinds from the cache and the request that fails is the LIST, not the
// discovery before it.
func warmDiscovery(t *testing.T, cp *controlplane.ControlPlane, cacheDir, server string, args ...string) {
	t.Helper()
	args = append(args, "--cache-dir", cacheDir, "--kubeconfig", cp.AdminKubeconfig())
	if server != "" {
		args = append(args, "--server", server)
	}
	if _, stderr, code := runOnce(t, nil, append([]string{"get"}, args...)...); code != 0 {
		t.Fatalf("warming the discovery cache: exit %d: %s", code, stderr)
	}
}

// assertOneShotFailure checks how a one-shot read fails: exit code 1,
// nothing on stdout, and stderr one line, saying want.
func assertOneShotFailure(t *testing.T, who, stdout, stderr string, code int, want string) {
	t.Helper()
	if code != 1 || stdout != "" {
		t.Errorf("%s: exit %d, stdout %q; want exit 1 and nothing on stdout", who, code, stdout)
	}
	if lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n"); len(lines) != 1 {
		t.Errorf("%s: stderr is not one error line:\n%s", who, stderr)
	}
	if !strings.Contains(stderr, want) {
		t.Errorf("%s: stderr %q does not say %q", who, stderr, want)
	}
}

// TestGetRequestTimeout: with --request-timeout=1ms the LIST cannot be
// answered in time; get fails as kubectl get does, at the first timeout and
// without retrying: one error line in kubectl's words, exit 1, nothing on
// stdout.
func TestGetRequestTimeout(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	createCM(t, cs, ns, "a", nil)
	cache := t.TempDir()
	warmDiscovery(t, cp, cache, "", "cm", "-n", ns)

	out, stderr, code := runOnce(t, nil, "get", "cm", "-n", ns, "--request-timeout=1ms", "--cache-dir", cache, "--kubeconfig", cp.AdminKubeconfig())
	assertOneShotFailure(t, "ours", out, stderr, code, "Unable to connect to the server: context deadline exceeded")
	kout, kerr, kcode := kubectl(t, cp.AdminKubeconfig(), "get", "cm", "-n", ns, "--request-timeout=1ms", "--cache-dir", cache)
	assertOneShotFailure(t, "kubectl", kout, kerr, kcode, "Unable to connect to the server")
}

// TestAPIServerDown: with kube-apiserver down (kinds resolved from the
// discovery cache), get gives up after a few quiet tries with kubectl
// get's one error line and exit 1; watch --timeout ends with a
// non-zero exit, saying which kinds it never listed.
func TestAPIServerDown(t *testing.T) {
	cp := controlplane.StartForTest(t, controlplane.Options{NoControllerManager: true})
	cs := admin(t, cp)
	ns := namespace(t, cs)
	createCM(t, cs, ns, "a", nil)
	cache := t.TempDir()
	warmDiscovery(t, cp, cache, "", "cm", "-n", ns)
	if err := cp.StopAPIServer(context.Background()); err != nil {
		t.Fatal(err)
	}

	t.Run("get", func(t *testing.T) {
		out, stderr, code := runOnce(t, nil, "get", "cm", "-n", ns, "--cache-dir", cache, "--kubeconfig", cp.AdminKubeconfig())
		assertOneShotFailure(t, "ours", out, stderr, code, "refused")
		kout, kerr, kcode := kubectl(t, cp.AdminKubeconfig(), "get", "cm", "-n", ns, "--cache-dir", cache)
		assertOneShotFailure(t, "kubectl", kout, kerr, kcode, "refused")
		if stderr != kerr {
			t.Errorf("stderr %q, kubectl's %q", stderr, kerr)
		}
	})
	t.Run("watch --timeout", func(t *testing.T) {
		out, stderr, code := runOnce(t, nil, "watch", "cm", "-n", ns, "--timeout", "3s", "--cache-dir", cache, "--kubeconfig", cp.AdminKubeconfig())
		if code != 1 || out != "" {
			t.Errorf("exit %d, stdout %q; want exit 1 and nothing on stdout", code, out)
		}
		var errs []string
		for _, l := range strings.Split(strings.TrimRight(stderr, "\n"), "\n") {
			switch {
			case strings.HasPrefix(l, "error: "):
				errs = append(errs, l)
			case !strings.HasPrefix(l, "warning: "):
				t.Errorf("stderr line neither a warning nor an error: %q", l)
			}
		}
		if want := "error: configmaps not listed within --timeout 3s"; len(errs) != 1 || errs[0] != want {
			t.Errorf("errors %q, want just %q; stderr:\n%s", errs, want, stderr)
		}
	})
}

// TestGetInterrupted: get interrupted by SIGINT before it could list (the
// server accepts connections and never answers) prints nothing on stdout
// and exits 130, never 0 as if there were no objects; kubectl get dies by
// the signal.
func TestGetInterrupted(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	createCM(t, cs, ns, "a", nil)
	px := newProxy(t, cp.Server())
	cache := t.TempDir()
	warmDiscovery(t, cp, cache, px.URL(), "cm", "-n", ns)
	px.stall()

	p := start(t, cp, "get", "cm", "-n", ns, "--cache-dir", cache, "--server", px.URL())
	px.waitStalled(t)
	if err := p.Cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := p.Wait(); code != 130 || p.Stderr.String() != "" {
		t.Errorf("exit %d, stderr %q; want 130 and nothing said", code, p.Stderr.String())
	}
	for l := range p.Lines {
		t.Errorf("printed %q", l)
	}

	px.forget()
	k := exec.Command(kubectlBinary, "get", "cm", "-n", ns, "--cache-dir", cache, "--server", px.URL(), "--kubeconfig", cp.AdminKubeconfig())
	var kout strings.Builder
	k.Stdout = &kout
	if err := k.Start(); err != nil {
		t.Fatal(err)
	}
	px.waitStalled(t)
	if err := k.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := k.Wait(); err == nil || kout.String() != "" {
		t.Errorf("kubectl interrupted: %v, stdout %q; want a failure and nothing on stdout", err, kout.String())
	}
}
