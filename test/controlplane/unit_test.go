package controlplane

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
)

func TestTailLines(t *testing.T) {
	for _, tc := range []struct {
		in        string
		max       int
		truncated bool
		want      string
	}{
		{"a\nb\nc\n", 2, false, "b\nc"},
		{"a\nb\nc", 5, false, "a\nb\nc"},
		{"partial\nb\nc\n", 5, true, "b\nc"},
		{"", 3, false, ""},
	} {
		if got := tailLines([]byte(tc.in), tc.max, tc.truncated); got != tc.want {
			t.Errorf("tailLines(%q, %d, %v) = %q, want %q", tc.in, tc.max, tc.truncated, got, tc.want)
		}
	}
}

func TestTailFileReadsOnlyTheEnd(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	if err := os.WriteFile(path, []byte(strings.Repeat("old line\n", 1000)+"last\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got := tailFile(path, 3, 64)
	if got != "old line\nold line\nlast" {
		t.Errorf("tailFile = %q", got)
	}
	if got := tailFile(filepath.Join(t.TempDir(), "missing"), 3, 64); !strings.HasPrefix(got, "(no log") {
		t.Errorf("tailFile(missing) = %q", got)
	}
}

func TestPrefixWriterPrefixesWholeLines(t *testing.T) {
	var out bytes.Buffer
	w := newPrefixWriter(&out, "[x] ")
	for _, s := range []string{"one\ntw", "o\n", "three"} {
		if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if got, want := out.String(), "[x] one\n[x] two\n"; got != want {
		t.Errorf("got %q, want %q (partial line held back)", got, want)
	}
}

func TestKubeconfigLoads(t *testing.T) {
	dir := t.TempDir()
	creds, err := writeCredentials(dir)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "kubeconfig")
	if err := writeKubeconfig(path, "https://127.0.0.1:6443", creds.caPEM, AdminUser, creds.adminToken); err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	want := restConfig("https://127.0.0.1:6443", creds.caPEM, creds.adminToken)
	if cfg.Host != want.Host || cfg.BearerToken != want.BearerToken || !bytes.Equal(cfg.CAData, want.CAData) {
		t.Errorf("kubeconfig gives host %q token %q, want %q %q", cfg.Host, cfg.BearerToken, want.Host, want.BearerToken)
	}
	tokens, err := os.ReadFile(creds.tokenFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(tokens), creds.adminToken+",admin,admin,\"system:masters\"\n") ||
		!strings.Contains(string(tokens), creds.userToken+",unprivileged,unprivileged\n") {
		t.Errorf("token file:\n%s", tokens)
	}
}

func TestCacheKeyFollowsToolsModule(t *testing.T) {
	dir := t.TempDir()
	write := func(sum string) {
		t.Helper()
		for name, body := range map[string]string{"go.mod": "module x\n\ngo 1.26\n", "go.sum": sum} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	ctx := context.Background()
	write("a v1.0.0 h1:x\n")
	core, sched := coreSet().recipe, schedulerSet().recipe
	k1, err := cacheKey(ctx, "go", dir, core)
	if err != nil {
		t.Fatal(err)
	}
	k2, _ := cacheKey(ctx, "go", dir, core)
	other, _ := cacheKey(ctx, "go", dir, sched) // another set of the same module
	write("a v1.0.1 h1:y\n")
	k3, _ := cacheKey(ctx, "go", dir, core)
	if k1 != k2 || k1 == k3 || k1 == other || len(k1) != 16 {
		t.Errorf("keys %q %q %q %q: want stable for the same module and recipe, different after a bump or for another set",
			k1, k2, k3, other)
	}
}

func TestResolveToolsDirFindsTheModule(t *testing.T) {
	dir, err := resolveToolsDir("")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(dir) != "tools" {
		t.Errorf("tools dir %s", dir)
	}
	if _, err := resolveToolsDir(t.TempDir()); err == nil {
		t.Errorf("a dir without go.mod was accepted")
	}
}

func TestCacheBase(t *testing.T) {
	t.Setenv(CacheEnv, "/from/env")
	if got, _ := cacheBase("/explicit"); got != "/explicit" {
		t.Errorf("explicit: %s", got)
	}
	if got, _ := cacheBase(""); got != "/from/env" {
		t.Errorf("env: %s", got)
	}
}
