package krew

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
)

// requireKubectl skips t under -short and returns the path of a kubectl:
// the one on PATH, else the one the control plane's build keeps (`make
// test` builds it first), so that the install test never skips for want of
// one, in CI least of all.
func requireKubectl(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds krew and a release archive and runs kubectl; skipped under -short")
	}
	if runtime.GOOS == "windows" {
		t.Skip("the install test runs POSIX shell steps")
	}
	if kubectl, err := exec.LookPath("kubectl"); err == nil {
		return kubectl
	}
	bins, err := controlplane.Build(context.Background(), controlplane.BuildOptions{})
	if err != nil {
		t.Fatalf("no kubectl on PATH, and building the control plane's: %v", err)
	}
	return bins.Kubectl
}

// runMake runs a target of the repository's Makefile and returns its
// output. The make that may be running this test passes nothing on.
func runMake(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("make", append([]string{"-C", repoRoot(t)}, args...)...)
	cmd.Env = withoutVars(os.Environ(), "MAKEFLAGS", "MFLAGS", "MAKELEVEL")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "Makefile")); err != nil {
		t.Fatalf("repository root: %v", err)
	}
	return root
}

// krewVersion is the version of sigs.k8s.io/krew that tools/go.mod pins.
func krewVersion(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("tools", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*(?:require\s+)?sigs\.k8s\.io/krew (v\S+)`).FindSubmatch(b)
	if m == nil {
		t.Fatal("tools/go.mod does not require sigs.k8s.io/krew")
	}
	return string(m[1])
}

// buildKrew returns krew built as kubectl-krew, from the Go module proxy
// through tools/go.mod, cached in os.UserCacheDir()/kubectl-reflect/krew/VERSION.
// It builds under a temporary name and renames, so a concurrent or
// interrupted build never leaves a broken binary in place.
func buildKrew(t *testing.T) string {
	t.Helper()
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(cache, "kubectl-reflect", "krew", krewVersion(t))
	bin := filepath.Join(dir, "kubectl-krew")
	if fi, err := os.Stat(bin); err == nil && fi.Mode().IsRegular() {
		return bin
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, err := os.CreateTemp(dir, "kubectl-krew.tmp-*")
	if err != nil {
		t.Fatal(err)
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	t.Logf("building krew %s into %s", krewVersion(t), dir)
	cmd := exec.Command("go", "build", "-o", tmp.Name(), "sigs.k8s.io/krew/cmd/krew")
	cmd.Dir = "tools"
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building krew: %v\n%s", err, out)
	}
	if err := os.Rename(tmp.Name(), bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

// krewEnv runs kubectl with krew as a plugin and a temporary KREW_ROOT
// whose bin directory is first on PATH, as krew's setup tells users to do.
type krewEnv struct {
	root    string
	env     []string
	kubectl string
}

func newKrewEnv(t *testing.T, kubectl, krew string) *krewEnv {
	dir := t.TempDir()
	root := filepath.Join(dir, "krew")
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	// Like a user's after `kubectl krew update`, but offline: krew's list
	// and uninstall want a git clone as the default index; an empty one does.
	if out, err := exec.Command("git", "init", "-q", filepath.Join(root, "index", "default")).CombinedOutput(); err != nil {
		t.Fatalf("git init of a local krew index: %v\n%s", err, out)
	}
	// Only these directories: a kubectl-reflect installed elsewhere must not
	// answer for the one krew installed.
	path := strings.Join([]string{filepath.Join(root, "bin"), filepath.Dir(krew), filepath.Dir(kubectl), "/usr/bin", "/bin"}, string(os.PathListSeparator))
	env := withoutVars(os.Environ(), "PATH", "HOME", "KREW_ROOT", "KUBECONFIG", "KREW_OS", "KREW_ARCH")
	env = append(env, "PATH="+path, "HOME="+home, "KREW_ROOT="+root, "KREW_NO_UPGRADE_CHECK=1",
		"KUBECONFIG="+filepath.Join(home, "no-kubeconfig"))
	return &krewEnv{root: root, env: env, kubectl: kubectl}
}

func (k *krewEnv) command(args ...string) *exec.Cmd {
	cmd := exec.Command(k.kubectl, args...)
	cmd.Env = k.env
	return cmd
}

// run runs kubectl and returns its standard output; it fails t on an error.
func (k *krewEnv) run(t *testing.T, args ...string) string {
	t.Helper()
	cmd := k.command(args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("kubectl %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String() + stderr.String()
}

// sh runs a shell command line with the same environment.
func (k *krewEnv) sh(t *testing.T, line string) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", line)
	cmd.Env = k.env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", line, err, out)
	}
}

// completions runs `kubectl __complete ...` and returns the completions
// without descriptions or the directive line.
func (k *krewEnv) completions(t *testing.T, args ...string) []string {
	t.Helper()
	cmd := k.command(args...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kubectl %s: %v", strings.Join(args, " "), err)
	}
	var comps []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l != "" && !strings.HasPrefix(l, ":") {
			comps = append(comps, strings.SplitN(l, "\t", 2)[0])
		}
	}
	return comps
}

func withoutVars(env []string, names ...string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(names, name) {
			out = append(out, kv)
		}
	}
	return out
}
