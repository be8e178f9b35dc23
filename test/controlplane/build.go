package controlplane

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// CacheEnv names the environment variable that overrides the base directory
// binaries are cached under (default: os.UserCacheDir()/kubectl-reflect/controlplane).
// Each set of binaries lives in a subdirectory named after a hash of the tools
// module, so a version bump builds a new set next to the old one.
const CacheEnv = "KUBECTL_REFLECT_CONTROLPLANE_CACHE"

// ldflags make /version report the real Kubernetes version instead of
// v0.0.0-master. Keep them in step with k8s.io/kubernetes in tools/go.mod.
const ldflags = "-X k8s.io/component-base/version.gitVersion=v1.37.2 " +
	"-X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=37 " +
	"-X k8s.io/client-go/pkg/version.gitVersion=v1.37.2 " +
	"-X k8s.io/client-go/pkg/version.gitMajor=1 -X k8s.io/client-go/pkg/version.gitMinor=37"

// buildRecipe is part of the cache key: bump it when the way the binaries are
// built changes.
const buildRecipe = "recipe 2 (with kubectl); ldflags " + ldflags

// buildTarget is a main package of the tools module: go build names its
// binary out, the cache calls it name.
type buildTarget struct{ pkg, out, name string }

// buildTargets lists etcd, kube-apiserver, kube-controller-manager and
// kubectl, in the order binariesIn uses. kubectl is built at the server's
// version so that the kubectl-parity tests never depend on (or skip for) the
// machine's kubectl, which may be outside the supported version skew.
func buildTargets() []buildTarget {
	return []buildTarget{
		{"go.etcd.io/etcd/server/v3", "server", "etcd"},
		{"k8s.io/kubernetes/cmd/kube-apiserver", "kube-apiserver", "kube-apiserver"},
		{"k8s.io/kubernetes/cmd/kube-controller-manager", "kube-controller-manager", "kube-controller-manager"},
		{"k8s.io/kubernetes/cmd/kubectl", "kubectl", "kubectl"},
	}
}

// BuildOptions configure Build. The zero value builds from the tools module
// next to this source file into the default cache.
type BuildOptions struct {
	// ToolsDir is the directory of the tools module (test/controlplane/tools).
	// Empty means the one next to this package's source, found through
	// runtime.Caller; set it when the source tree has moved (-trimpath).
	ToolsDir string
	// CacheDir is the base cache directory. Empty means $KUBECTL_REFLECT_CONTROLPLANE_CACHE,
	// else os.UserCacheDir()/kubectl-reflect/controlplane.
	CacheDir string
	// GoCommand is the go command to build with. Empty means "go" from PATH.
	GoCommand string
	// Progress, if set, receives a note when a build starts and the go build
	// output. A cold build takes minutes.
	Progress io.Writer
}

// Binaries are the paths of the control-plane executables and of the kubectl
// of the same version.
type Binaries struct {
	Dir               string // the directory holding all three
	Etcd              string
	APIServer         string
	ControllerManager string
	Kubectl           string
}

func binariesIn(dir string) Binaries {
	t := buildTargets()
	return Binaries{
		Dir:               dir,
		Etcd:              filepath.Join(dir, t[0].name),
		APIServer:         filepath.Join(dir, t[1].name),
		ControllerManager: filepath.Join(dir, t[2].name),
		Kubectl:           filepath.Join(dir, t[3].name),
	}
}

func (b Binaries) complete() bool {
	for _, p := range []string{b.Etcd, b.APIServer, b.ControllerManager, b.Kubectl} {
		if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
			return false
		}
	}
	return true
}

// Build returns the control-plane binaries, building them first unless the
// cache already holds them for the current tools module and Go toolchain.
// Concurrent calls, also from different processes, are safe: builders take a
// lock file and a finished set is moved into place with one rename.
func Build(ctx context.Context, opts BuildOptions) (Binaries, error) {
	toolsDir, err := resolveToolsDir(opts.ToolsDir)
	if err != nil {
		return Binaries{}, err
	}
	goCmd := opts.GoCommand
	if goCmd == "" {
		goCmd = "go"
	}
	key, err := cacheKey(ctx, goCmd, toolsDir)
	if err != nil {
		return Binaries{}, err
	}
	base, err := cacheBase(opts.CacheDir)
	if err != nil {
		return Binaries{}, err
	}
	bins := binariesIn(filepath.Join(base, key))
	if bins.complete() {
		return bins, nil
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		return Binaries{}, fmt.Errorf("create cache dir: %w", err)
	}
	unlock, err := lockFile(ctx, filepath.Join(base, key+".lock"))
	if err != nil {
		return Binaries{}, fmt.Errorf("lock binary cache: %w", err)
	}
	defer unlock()
	if bins.complete() { // another process built them while we waited
		return bins, nil
	}
	if err := buildInto(ctx, goCmd, toolsDir, base, bins.Dir, opts.Progress); err != nil {
		return Binaries{}, err
	}
	return bins, nil
}

// buildInto builds all binaries into a temporary directory under base and
// renames it to dir.
func buildInto(ctx context.Context, goCmd, toolsDir, base, dir string, progress io.Writer) error {
	if progress == nil {
		progress = io.Discard
	}
	tmp, err := os.MkdirTemp(base, filepath.Base(dir)+".tmp-")
	if err != nil {
		return fmt.Errorf("create build dir: %w", err)
	}
	defer os.RemoveAll(tmp)

	fmt.Fprintf(progress, "controlplane: building etcd, kube-apiserver, kube-controller-manager and kubectl into %s (a cold build takes minutes)\n", dir)
	args := []string{"build", "-buildvcs=false", "-ldflags", ldflags, "-o", tmp + string(filepath.Separator)}
	for _, p := range buildTargets() {
		args = append(args, p.pkg)
	}
	cmd := exec.CommandContext(ctx, goCmd, args...)
	cmd.Dir = toolsDir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	var out bytes.Buffer
	cmd.Stdout = io.MultiWriter(&out, progress)
	cmd.Stderr = cmd.Stdout
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build in %s: %w\n%s", toolsDir, err, out.Bytes())
	}
	for _, p := range buildTargets() {
		if p.out == p.name {
			continue
		}
		if err := os.Rename(filepath.Join(tmp, p.out), filepath.Join(tmp, p.name)); err != nil {
			return fmt.Errorf("name %s binary: %w", p.name, err)
		}
	}
	if !binariesIn(tmp).complete() {
		return fmt.Errorf("go build in %s did not produce all binaries", toolsDir)
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("build dir: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if binariesIn(dir).complete() { // lost a race to a builder without locks
			return nil
		}
		return fmt.Errorf("move binaries into the cache: %w", err)
	}
	return nil
}

// resolveToolsDir returns dir, or the tools directory next to this file.
func resolveToolsDir(dir string) (string, error) {
	if dir == "" {
		_, file, _, ok := runtime.Caller(0)
		if !ok || !filepath.IsAbs(file) {
			return "", errors.New("cannot locate test/controlplane/tools from the source path (built with -trimpath?): set BuildOptions.ToolsDir")
		}
		dir = filepath.Join(filepath.Dir(file), "tools")
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		return "", fmt.Errorf("tools module: %w", err)
	}
	return dir, nil
}

// cacheBase returns the base cache directory.
func cacheBase(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	if dir := os.Getenv(CacheEnv); dir != "" {
		return dir, nil
	}
	user, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache dir (set %s): %w", CacheEnv, err)
	}
	return filepath.Join(user, "kubectl-reflect", "controlplane"), nil
}

// cacheKey hashes what determines the binaries: the tools module's go.mod and
// go.sum, the Go toolchain and target, and the build recipe.
func cacheKey(ctx context.Context, goCmd, toolsDir string) (string, error) {
	h := sha256.New()
	for _, name := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(toolsDir, name))
		if err != nil {
			return "", fmt.Errorf("read tools module: %w", err)
		}
		fmt.Fprintf(h, "%s %d\n", name, len(b))
		h.Write(b)
	}
	cmd := exec.CommandContext(ctx, goCmd, "env", "GOVERSION", "GOOS", "GOARCH", "CGO_ENABLED")
	cmd.Dir = toolsDir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	env, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s env: %w", goCmd, err)
	}
	h.Write(env)
	h.Write([]byte(buildRecipe))
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}
