package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// assertOneLineError checks kubectl's way of failing: a non-zero exit and
// one line `error: ...` on stderr, no panic, no stack trace.
func assertOneLineError(t *testing.T, stderr string, code int, want string) {
	t.Helper()
	if code == 0 {
		t.Errorf("exit 0, want non-zero")
	}
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "error: ") {
		t.Errorf("stderr is not one `error: ...` line:\n%s", stderr)
	}
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr %q does not say %q", stderr, want)
	}
	if strings.Contains(stderr, "panic") || strings.Contains(stderr, "goroutine ") {
		t.Errorf("stderr shows a panic or stack trace:\n%s", stderr)
	}
}

func TestBadInput(t *testing.T) {
	cp := cluster.Get(t)
	dir := t.TempDir()
	malformed := filepath.Join(dir, "malformed")
	if err := os.WriteFile(malformed, []byte("apiVersion: v1\nclusters: [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	kc := "--kubeconfig=" + cp.AdminKubeconfig()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown kind", []string{"watch", "nosuchkind", kc}, `the server doesn't have a resource type "nosuchkind"`},
		{"unknown kind among others", []string{"watch", "cm,nosuchkind", kc}, `"nosuchkind"`},
		{"invalid label selector", []string{"watch", "cm", "-l", "a in (", kc}, "invalid label selector"},
		{"invalid field selector", []string{"watch", "cm", "--field-selector", "a", kc}, "invalid field selector"},
		{"invalid list mode", []string{"get", "cm", "--list-mode", "fast", kc}, "invalid --list-mode \"fast\""},
		{"unknown profile", []string{"version", "--profile", "mem"}, "unknown --profile \"mem\""},
		{"unsupported field selector", []string{"watch", "cm", "--field-selector", "spec.nothing=1", kc}, "is not a known field selector"},
		{"unreachable server", []string{"watch", "cm", kc, "--server", "https://127.0.0.1:1"}, "connection refused"},
		{"malformed kubeconfig", []string{"watch", "cm", "--kubeconfig", malformed}, "error loading config file"},
		{"missing kubeconfig", []string{"watch", "cm", "--kubeconfig", filepath.Join(dir, "missing")}, "no such file"},
		{"name across namespaces", []string{"watch", "cm", "x", "-A", kc}, "across all namespaces"},
		{"kind/name and name", []string{"watch", "cm/x", "y", kc}, "resource/name form (e.g. 'kubectl reflect watch resource/<resource_name>'"},
		{"unknown output", []string{"watch", "cm", "-o", "xml", kc}, `output format "xml"`},
		{"bad jsonpath", []string{"watch", "cm", "-o", "jsonpath={.a[", kc}, "jsonpath"},
		{"unknown event type", []string{"watch", "cm", "--events", "created", kc}, `"created"`},
		{"negative max-events", []string{"watch", "cm", "--max-events", "-1", kc}, "--max-events"},
		{"diff-new without diff", []string{"watch", "cm", "--diff-new", kc}, "--diff-new prints the YAML of new objects under --diff: give --diff too"},
		{"diff with json", []string{"watch", "cm", "--diff", "--diff-new", "-o", "json", kc}, "--diff prints YAML diffs and cannot be combined with -o json"},
		{"unknown flag", []string{"watch", "cm", "--nosuchflag", kc}, "unknown flag: --nosuchflag"},
		{"unknown command", []string{"nosuchcommand", kc}, `unknown command "nosuchcommand"`},
		{"get: unknown kind", []string{"get", "nosuchkind", kc}, `the server doesn't have a resource type "nosuchkind"`},
		{"get: unknown output", []string{"get", "cm", "-o", "xml", kc}, `output format "xml"`},
		{"get: invalid selector", []string{"get", "cm", "-l", "=", kc}, "invalid label selector"},
		{"get: bad sort-by", []string{"get", "cm", "--sort-by", "{.a", kc}, "sort"},
		{"bad version output", []string{"version", "-o", "xml"}, "--output"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runOnce(t, nil, tc.args...)
			assertOneLineError(t, stderr, code, tc.want)
		})
	}
}

// assertKubectlError checks that a command failed with the exit code
// and stderr of kubectl run with args and kubeconfig, and that kubectl's
// stderr is one line (the server's error).
func assertKubectlError(t *testing.T, kubeconfig, stderr string, code int, args ...string) {
	t.Helper()
	_, want, wantCode := kubectl(t, kubeconfig, args...)
	if code != wantCode || stderr != want || strings.Count(want, "\n") != 1 {
		t.Errorf("exit %d, stderr %q; kubectl: exit %d, stderr %q", code, stderr, wantCode, want)
	}
}

// TestForbidden: a kind the user may not read is reported by name as an
// error; the other kinds go on; the exit code is 1.
func TestForbidden(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	createCM(t, cs, ns, "visible", nil)
	allowConfigMapsOnly(t, ns)
	user := "--kubeconfig=" + cp.UserKubeconfig()

	t.Run("only kind", func(t *testing.T) {
		_, stderr, code := runOnce(t, nil, "watch", "secrets", "-n", ns, user)
		assertOneLineError(t, stderr, code, `secrets is forbidden: User "unprivileged" cannot`)
	})
	// get reports the server's refusal in kubectl get's words.
	t.Run("get only kind", func(t *testing.T) {
		_, stderr, code := runOnce(t, nil, "get", "secrets", "-n", ns, user)
		assertKubectlError(t, cp.UserKubeconfig(), stderr, code, "get", "secrets", "-n", ns)
	})
	t.Run("get -w only kind", func(t *testing.T) {
		_, stderr, code := runOnce(t, nil, "get", "secrets", "-n", ns, "-w", user)
		assertKubectlError(t, cp.UserKubeconfig(), stderr, code, "get", "secrets", "-n", ns, "-w")
	})
	t.Run("get one of two kinds", func(t *testing.T) {
		out, stderr, code := runOnce(t, nil, "get", "configmaps,secrets", "-n", ns, "-o", "name", user)
		if out != "configmap/visible\n" {
			t.Errorf("stdout %q, want the readable kind's object", out)
		}
		assertKubectlError(t, cp.UserKubeconfig(), stderr, code, "get", "configmaps,secrets", "-n", ns, "-o", "name")
	})
	t.Run("one of two kinds", func(t *testing.T) {
		out, stderr, code := runOnce(t, nil, "watch", "configmaps,secrets", "-n", ns, "-o", "name", "--timeout", "5s", user)
		if out != "configmap/visible\n" {
			t.Errorf("stdout %q, want the readable kind's object", out)
		}
		assertOneLineError(t, stderr, code, `secrets is forbidden`)
		if code != 1 {
			t.Errorf("exit %d, want 1", code)
		}
	})
}

// TestClosedPipe: `watch ... | head -1` ends as soon as head has its line,
// though no further event would be written.
func TestClosedPipe(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	createCM(t, cs, ns, "only", nil)
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	script := `"$0" watch cm -n "$1" -o name --kubeconfig "$2" | head -1`
	out, err := exec.CommandContext(ctx, "sh", "-c", script, binary, ns, cp.AdminKubeconfig()).CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("the pipeline did not end within %s", patience)
	}
	if err != nil || string(out) != "configmap/only\n" {
		t.Errorf("output %q, err %v", out, err)
	}
}

// TestPluginDiscovery: kubectl finds the binary on PATH as `kubectl reflect`.
func TestPluginDiscovery(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	createCM(t, cs, ns, "found", nil)
	env := append(os.Environ(), "PATH="+filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH"), "KUBECONFIG="+cp.AdminKubeconfig())
	run := func(args ...string) string {
		ctx, cancel := context.WithTimeout(context.Background(), patience)
		defer cancel()
		cmd := exec.CommandContext(ctx, kubectlBinary, args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if out := run("plugin", "list"); !strings.Contains(out, "kubectl-reflect") {
		t.Errorf("kubectl plugin list does not show kubectl-reflect:\n%s", out)
	}
	if out := run("reflect", "version"); !strings.HasPrefix(out, "kubectl-reflect ") {
		t.Errorf("kubectl reflect version: %q", out)
	}
	if out := run("reflect", "--help"); !strings.Contains(out, "kubectl reflect watch") && !strings.Contains(out, "kubectl reflect [command]") {
		t.Errorf("help does not read `kubectl reflect`:\n%s", out)
	}
	if out := run("reflect", "watch", "cm", "-n", ns, "-o", "name", "--max-events", "1"); out != "configmap/found\n" {
		t.Errorf("kubectl reflect watch: %q", out)
	}
}

// TestTimeout: --timeout ends the stream with exit 0.
func TestTimeout(t *testing.T) {
	cp := cluster.Get(t)
	start := time.Now()
	_, stderr, code := runOnce(t, nil, "watch", "cm", "-n", "default", "--timeout", "2s", "--kubeconfig", cp.AdminKubeconfig())
	if code != 0 || time.Since(start) < 2*time.Second {
		t.Errorf("exit %d after %s; stderr %s", code, time.Since(start), stderr)
	}
}
