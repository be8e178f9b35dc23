package krew

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The version stamped into the archive the tests build; krew needs semver.
const (
	version = "v0.0.1-krewtest"
	commit  = "c0ffee1"
	date    = "2026-01-02T03:04:05Z"
)

// release is a release archive and its rendered krew manifest.
type release struct {
	archive, manifest string
}

// buildRelease runs `make dist` and `make krew-manifest` for the host
// platform into a temporary directory, as a release does for all of them.
func buildRelease(t *testing.T) release {
	t.Helper()
	dir := t.TempDir()
	dist := filepath.Join(dir, "dist")
	vars := []string{"VERSION=" + version, "COMMIT=" + commit, "DATE=" + date,
		"PLATFORMS=" + runtime.GOOS + "/" + runtime.GOARCH, "DIST_DIR=" + dist}
	runMake(t, append([]string{"dist"}, vars...)...)
	r := release{
		archive:  filepath.Join(dist, "kubectl-reflect_"+version+"_"+runtime.GOOS+"_"+runtime.GOARCH+".tar.gz"),
		manifest: filepath.Join(dir, "reflect.yaml"),
	}
	runMake(t, append([]string{"krew-manifest", "KREW_MANIFEST=" + r.manifest}, vars...)...)
	return r
}

func TestKrewInstallsTheReleaseArchive(t *testing.T) {
	kubectl := requireKubectl(t)
	krew := buildKrew(t)
	r := buildRelease(t)

	t.Run("the manifest passes krew's validation", func(t *testing.T) {
		out := runMake(t, "validate-krew-manifest", "KREW_MANIFEST="+r.manifest)
		if !strings.Contains(out, "structural validation OK") || !strings.Contains(out, "no overlapping spec.platform[].selector") {
			t.Errorf("validate-krew-manifest said:\n%s", out)
		}
	})

	t.Run("the archive holds the plugin at its root", func(t *testing.T) {
		want := []string{"-rw-r--r-- LICENSE", "-rw-r--r-- README.md", "-rwxr-xr-x kubectl-reflect", "-rwxr-xr-x kubectl_complete-reflect"}
		if got := archiveEntries(t, r.archive); !slices.Equal(got, want) {
			t.Errorf("entries = %q, want %q", got, want)
		}
	})

	k := newKrewEnv(t, kubectl, krew)
	out := k.run(t, "krew", "install", "--manifest="+r.manifest, "--archive="+r.archive)
	for _, want := range []string{"Installed plugin: reflect", "kubectl_complete-reflect", "list and watch"} {
		if !strings.Contains(out, want) {
			t.Errorf("krew install output lacks %q (caveats included):\n%s", want, out)
		}
	}
	store := filepath.Join(k.root, "store", "reflect", version)
	for _, f := range []string{"kubectl-reflect", "kubectl_complete-reflect", "LICENSE"} {
		if _, err := os.Stat(filepath.Join(store, f)); err != nil {
			t.Errorf("krew did not install %s: %v", f, err)
		}
	}
	if out := k.run(t, "krew", "list"); !regexp.MustCompile(`(?m)^(detached/)?reflect\b`).MatchString(out) {
		t.Errorf("krew list does not show reflect:\n%s", out)
	}

	t.Run("kubectl finds the plugin", func(t *testing.T) {
		out := k.run(t, "reflect", "version")
		if want := "kubectl-reflect " + version + " (commit " + commit + ", built " + date + ","; !strings.HasPrefix(out, want) {
			t.Errorf("kubectl reflect version = %q, want it to start with %q", out, want)
		}
		var info struct{ Version, Commit, BuildDate string }
		if err := json.Unmarshal([]byte(k.run(t, "reflect", "version", "-o", "json")), &info); err != nil {
			t.Fatal(err)
		}
		if info.Version != version || info.Commit != commit || info.BuildDate != date {
			t.Errorf("kubectl reflect version -o json = %+v, want %s, %s, %s", info, version, commit, date)
		}
		help := k.run(t, "reflect", "--help")
		for _, want := range []string{"kubectl reflect [command]", "watch", "completion"} {
			if !strings.Contains(help, want) {
				t.Errorf("kubectl reflect --help lacks %q:\n%s", want, help)
			}
		}
		if script := k.run(t, "reflect", "completion", "bash"); !strings.Contains(script, "complete -o default -F __start_kubectl-reflect kubectl-reflect") {
			t.Errorf("kubectl reflect completion bash does not complete kubectl-reflect:\n%.400s", script)
		}
	})

	t.Run("completion through kubectl after the caveats' step", func(t *testing.T) {
		k.sh(t, caveatCopyLine(t, r.manifest))
		got := k.completions(t, "__complete", "reflect", "")
		for _, want := range []string{"watch", "version", "completion"} {
			if !slices.Contains(got, want) {
				t.Errorf("kubectl reflect <TAB> = %q, want %q among them", got, want)
			}
		}
		if got := k.completions(t, "__complete", "reflect", "watch", "--watch-o"); !slices.Equal(got, []string{"--watch-only"}) {
			t.Errorf("kubectl reflect watch --watch-o<TAB> = %q, want --watch-only", got)
		}
	})

	k.run(t, "krew", "uninstall", "reflect")
	for _, p := range []string{filepath.Join(k.root, "bin", "kubectl-reflect"), filepath.Join(k.root, "store", "reflect"),
		filepath.Join(k.root, "receipts", "reflect.yaml")} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still there after uninstall (%v)", p, err)
		}
	}
	if out, err := k.command("reflect", "version").CombinedOutput(); err == nil {
		t.Errorf("kubectl reflect still runs after uninstall:\n%s", out)
	}
}

// archiveEntries lists a .tar.gz as "MODE NAME" lines in archive order.
func archiveEntries(t *testing.T, path string) []string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, h.FileInfo().Mode().String()+" "+h.Name)
	}
}

// caveatCopyLine is the shell command the manifest's caveats give for
// putting the completion helper on PATH.
func caveatCopyLine(t *testing.T, manifest string) string {
	b, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*(cp .*kubectl_complete-reflect.*)$`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("the caveats of %s give no cp command for kubectl_complete-reflect", manifest)
	}
	return string(m[1])
}
