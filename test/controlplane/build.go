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
	"slices"
	"time"
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

// buildTarget is a main package of a tools module: go build names its
// binary out, the cache calls it name.
type buildTarget struct{ pkg, out, name string }

// binarySet is what one go build makes: binaries from one tools module,
// cached together in a directory named after a hash of the module and the
// recipe (cacheKey).
type binarySet struct {
	what    string // for messages
	module  string // the tools module's directory, beside test/controlplane/tools
	recipe  string // part of the cache key: change it when the way the set is built changes
	ldflags string
	targets []buildTarget
	// files are other files a complete set has, written by after.
	files []string
	// after, if set, runs once go build has put the targets into dir.
	after func(ctx context.Context, goCmd, moduleDir, dir string) error
}

// complete reports whether dir holds every file of the set.
func (s binarySet) complete(dir string) bool {
	names := slices.Clone(s.files)
	for _, t := range s.targets {
		names = append(names, t.name)
	}
	for _, name := range names {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || !fi.Mode().IsRegular() {
			return false
		}
	}
	return true
}

// coreSet is etcd, kube-apiserver, kube-controller-manager and kubectl, in
// the order binariesIn uses. kubectl is built at the server's version so
// that the kubectl-parity tests never depend on (or skip for) the machine's
// kubectl, which may be outside the supported version skew. Its recipe is
// unchanged since kubectl joined: a new one would rebuild every cache.
func coreSet() binarySet {
	return binarySet{
		what:    "etcd, kube-apiserver, kube-controller-manager and kubectl",
		module:  "tools",
		recipe:  "recipe 2 (with kubectl); ldflags " + ldflags,
		ldflags: ldflags,
		targets: []buildTarget{
			{"go.etcd.io/etcd/server/v3", "server", "etcd"},
			{"k8s.io/kubernetes/cmd/kube-apiserver", "kube-apiserver", "kube-apiserver"},
			{"k8s.io/kubernetes/cmd/kube-controller-manager", "kube-controller-manager", "kube-controller-manager"},
			{"k8s.io/kubernetes/cmd/kubectl", "kubectl", "kubectl"},
		},
	}
}

// schedulerSet is kube-scheduler, from the same module as the core set: a
// build after the core's finds most packages in Go's build cache.
func schedulerSet() binarySet {
	return binarySet{
		what:    "kube-scheduler",
		module:  "tools",
		recipe:  "kube-scheduler recipe 1; ldflags " + ldflags,
		ldflags: ldflags,
		targets: []buildTarget{{"k8s.io/kubernetes/cmd/kube-scheduler", "kube-scheduler", "kube-scheduler"}},
	}
}

// BuildOptions configure Build. The zero value builds the core set (etcd,
// kube-apiserver, kube-controller-manager, kubectl) from the tools module
// next to this source file into the default cache.
type BuildOptions struct {
	// ToolsDir is the directory of the tools module (test/controlplane/tools);
	// kwok's module is the directory kwoktools beside it. Empty means the one
	// next to this package's source, found through runtime.Caller; set it
	// when the source tree has moved (-trimpath).
	ToolsDir string
	// CacheDir is the base cache directory. Empty means $KUBECTL_REFLECT_CONTROLPLANE_CACHE,
	// else os.UserCacheDir()/kubectl-reflect/controlplane.
	CacheDir string
	// GoCommand is the go command to build with. Empty means "go" from PATH.
	GoCommand string
	// Progress, if set, receives a note when a build starts and the go build
	// output. A cold build takes minutes.
	Progress io.Writer

	// Scheduler also builds kube-scheduler (Binaries.Scheduler), from the
	// tools module; after the core set it adds little to a cold build.
	Scheduler bool
	// Kwok also builds kwok and copies its stage files (Binaries.Kwok,
	// Binaries.KwokStages), from the kwoktools module.
	Kwok bool
}

// Binaries are the paths of the control-plane executables and of the kubectl
// of the same version. Start needs the core set; Scheduler and Kwok only
// when Options ask for them (and Start builds them then if they are empty).
type Binaries struct {
	Dir               string // the directory holding the core set: the next four
	Etcd              string
	APIServer         string
	ControllerManager string
	Kubectl           string

	Scheduler  string // kube-scheduler, in a cache directory of its own
	Kwok       string // kwok, in a cache directory of its own
	KwokStages string // the Stages kwok plays, beside kwok (see kwokSet)
}

func binariesIn(dir string) Binaries {
	t := coreSet().targets
	return Binaries{
		Dir:               dir,
		Etcd:              filepath.Join(dir, t[0].name),
		APIServer:         filepath.Join(dir, t[1].name),
		ControllerManager: filepath.Join(dir, t[2].name),
		Kubectl:           filepath.Join(dir, t[3].name),
	}
}

// Build returns the control-plane binaries, building them first unless the
// cache already holds them for the current tools modules and Go toolchain.
// Concurrent calls, also from different processes, are safe: builders take a
// lock file and a finished set is moved into place with one rename.
func Build(ctx context.Context, opts BuildOptions) (Binaries, error) {
	dir, err := buildSet(ctx, opts, coreSet())
	if err != nil {
		return Binaries{}, err
	}
	bins := binariesIn(dir)
	return bins, buildOptional(ctx, opts, &bins, opts.Scheduler, opts.Kwok)
}

// buildOptional builds kube-scheduler and kwok if asked for and not in bins
// yet, and fills in their paths.
func buildOptional(ctx context.Context, opts BuildOptions, bins *Binaries, scheduler, kwok bool) error {
	if scheduler && bins.Scheduler == "" {
		set := schedulerSet()
		dir, err := buildSet(ctx, opts, set)
		if err != nil {
			return err
		}
		bins.Scheduler = filepath.Join(dir, set.targets[0].name)
	}
	if kwok && bins.Kwok == "" {
		set := kwokSet()
		dir, err := buildSet(ctx, opts, set)
		if err != nil {
			return err
		}
		bins.Kwok = filepath.Join(dir, set.targets[0].name)
		bins.KwokStages = filepath.Join(dir, kwokStagesFile)
	}
	return nil
}

// buildSet returns the cache directory holding set, building it first if
// the cache does not hold it complete.
func buildSet(ctx context.Context, opts BuildOptions, set binarySet) (string, error) {
	toolsDir, err := resolveToolsDir(opts.ToolsDir)
	if err != nil {
		return "", err
	}
	moduleDir := filepath.Join(filepath.Dir(toolsDir), set.module)
	goCmd := opts.GoCommand
	if goCmd == "" {
		goCmd = "go"
	}
	key, err := cacheKey(ctx, goCmd, moduleDir, set.recipe)
	if err != nil {
		return "", err
	}
	base, err := cacheBase(opts.CacheDir)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(base, key)
	if set.complete(dir) {
		return dir, nil
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", fmt.Errorf("create cache dir: %w", err)
	}
	unlock, err := lockFile(ctx, filepath.Join(base, key+".lock"))
	if err != nil {
		return "", fmt.Errorf("lock binary cache: %w", err)
	}
	defer unlock()
	if set.complete(dir) { // another process built them while we waited
		return dir, nil
	}
	if err := buildInto(ctx, goCmd, moduleDir, base, dir, set, opts.Progress); err != nil {
		return "", err
	}
	return dir, nil
}

// buildInto builds set into a temporary directory under base and renames it
// to dir.
func buildInto(ctx context.Context, goCmd, moduleDir, base, dir string, set binarySet, progress io.Writer) error {
	if progress == nil {
		progress = io.Discard
	}
	tmp, err := os.MkdirTemp(base, filepath.Base(dir)+".tmp-")
	if err != nil {
		return fmt.Errorf("create build dir: %w", err)
	}
	defer os.RemoveAll(tmp)

	fmt.Fprintf(progress, "controlplane: building %s into %s (a cold build takes minutes)\n", set.what, dir)
	began := time.Now()
	args := []string{"build", "-buildvcs=false"}
	if set.ldflags != "" {
		args = append(args, "-ldflags", set.ldflags)
	}
	args = append(args, "-o", tmp+string(filepath.Separator))
	for _, p := range set.targets {
		args = append(args, p.pkg)
	}
	cmd := exec.CommandContext(ctx, goCmd, args...)
	cmd.Dir = moduleDir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	var out bytes.Buffer
	cmd.Stdout = io.MultiWriter(&out, progress)
	cmd.Stderr = cmd.Stdout
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build in %s: %w\n%s", moduleDir, err, out.Bytes())
	}
	for _, p := range set.targets {
		if p.out == p.name {
			continue
		}
		if err := os.Rename(filepath.Join(tmp, p.out), filepath.Join(tmp, p.name)); err != nil {
			return fmt.Errorf("name %s binary: %w", p.name, err)
		}
	}
	if set.after != nil {
		if err := set.after(ctx, goCmd, moduleDir, tmp); err != nil {
			return err
		}
	}
	if !set.complete(tmp) {
		return fmt.Errorf("go build in %s did not produce %s", moduleDir, set.what)
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("build dir: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if set.complete(dir) { // lost a race to a builder without locks
			return nil
		}
		return fmt.Errorf("move binaries into the cache: %w", err)
	}
	fmt.Fprintf(progress, "controlplane: built %s in %s\n", set.what, time.Since(began).Round(time.Second))
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

// cacheKey hashes what determines a set of binaries: its module's go.mod and
// go.sum, the Go toolchain and target, and the set's recipe.
func cacheKey(ctx context.Context, goCmd, moduleDir, recipe string) (string, error) {
	h := sha256.New()
	for _, name := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(moduleDir, name))
		if err != nil {
			return "", fmt.Errorf("read tools module: %w", err)
		}
		fmt.Fprintf(h, "%s %d\n", name, len(b))
		h.Write(b)
	}
	cmd := exec.CommandContext(ctx, goCmd, "env", "GOVERSION", "GOOS", "GOARCH", "CGO_ENABLED")
	cmd.Dir = moduleDir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	env, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s env: %w", goCmd, err)
	}
	h.Write(env)
	h.Write([]byte(recipe))
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}
