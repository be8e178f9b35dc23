//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
)

// generators are the ConfigMapGenerators of the controller part.
var generators = schema.GroupVersionResource{Group: "kubectl-reflect.io", Version: "v1alpha1", Resource: "configmapgenerators"}

// controllerResult is the controller part: the configmap-generator of
// `kubectl-reflect run-controller` against the same controller written with
// controller-runtime (test/bench/crcmg) configured as its docs advise for
// the job (-advised: the ConfigMaps cached as metadata only, managedFields
// stripped) and at its defaults, and against itself over HTTP/2 (what the
// choice of HTTP/1.1 saves), cfg.repeat rounds each.
type controllerResult struct {
	generators, changes, concurrency int
	reflect, advised, runtime, http2 []controllerSample // one per round
	reflectSize, runtimeSize         int64              // bytes of each binary
}

// controllerSample is one controller's round.
type controllerSample struct {
	create   time.Duration    // the benchmark's creates of the generators alone
	generate time.Duration    // from the first create to the last generated ConfigMap seen
	cpu      time.Duration    // the controller's user+system CPU over generate
	hwm      int64            // its VmHWM once all were generated
	anon     int64            // its RssAnon then: without the binary's pages
	latency  []time.Duration  // one spec change to its ConfigMap updated, sorted
	writes   controllerWrites // the API server's count of the controller's writes over generate
}

// controllerRun is how to start one of the controllers.
type controllerRun struct {
	name    string
	id      string // in its namespaces' names
	path    string
	args    []string
	env     []string // added to its environment
	profile string   // where it writes a CPU profile, ".ROUND" appended; "" for none
}

// measureController builds the controller-runtime controller, installs the
// CRD and runs cfg.repeat rounds, each controller in a fresh namespace.
func measureController(ctx context.Context, e *env) (controllerResult, error) {
	r := controllerResult{generators: e.cfg.generators, changes: e.cfg.changes, concurrency: e.cfg.concurrency}
	crcmg, err := buildCRCMG(ctx, e)
	if err != nil {
		return r, err
	}
	if err := installGeneratorCRD(ctx, e); err != nil {
		return r, err
	}
	if r.reflectSize, err = fileSize(e.tools.reflect); err != nil {
		return r, err
	}
	if r.runtimeSize, err = fileSize(crcmg); err != nil {
		return r, err
	}
	conc := strconv.Itoa(e.cfg.concurrency)
	ours := []string{"run-controller", "configmap-generator", "-A", "-q", "--concurrency", conc, "--kubeconfig", e.kubeconfig}
	runs := []controllerRun{
		{"kubectl-reflect", "kubectl-reflect", e.tools.reflect, ours, nil, e.cfg.controllerprofile},
		{"controller-runtime, as its docs advise", "advised", crcmg, []string{"--concurrency", conc, "--qps", "-1", "--advised", "--kubeconfig", e.kubeconfig}, nil, ""},
		{"controller-runtime", "controller-runtime", crcmg, []string{"--concurrency", conc, "--qps", "-1", "--kubeconfig", e.kubeconfig}, nil, ""},
		{"kubectl-reflect over HTTP/2", "http2", e.tools.reflect, ours, []string{kube.HTTP2Env + "=1"}, ""},
	}
	samples := make([][]controllerSample, len(runs))
	for round := range e.cfg.repeat {
		for k := range runs { // each goes first in turn, against drift on a busy machine
			i := (round + k) % len(runs)
			s, err := controllerRound(ctx, e, runs[i], round)
			if err != nil {
				return r, fmt.Errorf("%s, round %d: %w", runs[i].name, round+1, err)
			}
			samples[i] = append(samples[i], s)
		}
	}
	r.reflect, r.advised, r.runtime, r.http2 = samples[0], samples[1], samples[2], samples[3]
	return r, nil
}

// controllerRound runs one controller over all namespaces while it
// generates cfg.generators ConfigMaps in a new namespace, then times
// cfg.changes spec changes one at a time; it then stops the controller and
// deletes what it made, so that the next one starts from the same cluster.
// (There is no kube-controller-manager: the garbage collector does not run.)
func controllerRound(ctx context.Context, e *env, run controllerRun, round int) (controllerSample, error) {
	var s controllerSample
	ns := fmt.Sprintf("cmg-%d-%s", round+1, run.id)
	if _, err := e.clients.cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		return s, fmt.Errorf("create namespace %s: %w", ns, err)
	}
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	gen, err := watchGenerated(wctx, e, ns)
	if err != nil {
		return s, err
	}
	dc, err := dynamic.NewForConfig(e.clients.cfg)
	if err != nil {
		return s, fmt.Errorf("dynamic client: %w", err)
	}
	cmgs := dc.Resource(generators).Namespace(ns)

	args := run.args
	if run.profile != "" {
		args = append(slices.Clip(args), "--profile", "cpu", "--profile-output", fmt.Sprintf("%s.%d", run.profile, round+1))
	}
	c, err := e.procs.startWith(ctx, run.env, io.Discard, run.path, args...)
	if err != nil {
		return s, err
	}
	defer c.kill()
	// Ready: it has synced and generates (the sentinel's ConfigMap exists).
	e.logf("round %d/%d: %s: waiting for it to generate a sentinel", round+1, e.cfg.repeat, run.name)
	if err := createGenerator(ctx, cmgs, "sentinel", payload(0, e.cfg.size)); err != nil {
		return s, err
	}
	if _, err := gen.await(ctx, e.cfg.wait, c.done, "sentinel ConfigMap", func(revs map[string]string) bool { _, ok := revs["sentinel"]; return ok }); err != nil {
		return s, c.failure(err)
	}

	cpu0, err := readCPU(c.pid())
	if err != nil {
		return s, err
	}
	w0, err := readControllerWrites(ctx, e)
	if err != nil {
		return s, err
	}
	e.logf("round %d/%d: %s: creating %d ConfigMapGenerators", round+1, e.cfg.repeat, run.name, e.cfg.generators)
	start := time.Now()
	err = parallel(ctx, e.cfg.workers, e.cfg.generators, func(ctx context.Context, i int) error {
		return createGenerator(ctx, cmgs, generatorName(i), payload(i+1, e.cfg.size))
	})
	if err != nil {
		return s, err
	}
	s.create = time.Since(start)
	want := e.cfg.generators + 1
	last, err := gen.await(ctx, e.cfg.wait, c.done, fmt.Sprintf("%d generated ConfigMaps", want), func(revs map[string]string) bool { return len(revs) >= want })
	if err != nil {
		return s, c.failure(err)
	}
	s.generate = last.Sub(start)
	cpu1, err := readCPU(c.pid())
	if err != nil {
		return s, err
	}
	s.cpu = cpu1 - cpu0
	w1, err := readControllerWrites(ctx, e)
	if err != nil {
		return s, err
	}
	s.writes = w1.minus(w0)
	m, err := readMemory(c.pid())
	if err != nil {
		return s, err
	}
	s.hwm, s.anon = m.hwm, m.anon

	e.logf("round %d/%d: %s: %d ConfigMaps in %s; timing %d spec changes", round+1, e.cfg.repeat, run.name, e.cfg.generators, s.generate.Round(time.Millisecond), e.cfg.changes)
	if s.latency, err = specChanges(ctx, e, cmgs, gen, c); err != nil {
		return s, err
	}
	c.stop(10 * time.Second)
	stopWatch()
	return s, cleanGenerated(ctx, e, cmgs, ns)
}

// specChanges changes one generator's spec.data.rev at a time and times
// each until its ConfigMap shows it.
func specChanges(ctx context.Context, e *env, cmgs dynamic.ResourceInterface, gen *generated, c *child) ([]time.Duration, error) {
	lat := make([]time.Duration, 0, e.cfg.changes)
	for k := range e.cfg.changes {
		name, rev := generatorName(k%e.cfg.generators), strconv.Itoa(k+1)
		patch, err := json.Marshal(map[string]any{"spec": map[string]any{"data": map[string]string{"rev": rev}}})
		if err != nil {
			return nil, err
		}
		start := time.Now()
		if _, err := cmgs.Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			return nil, fmt.Errorf("change ConfigMapGenerator %s: %w", name, err)
		}
		seen, err := gen.await(ctx, e.cfg.wait, c.done, "ConfigMap of "+name+" at rev "+rev, func(revs map[string]string) bool { return revs[name] == rev })
		if err != nil {
			return nil, c.failure(err)
		}
		lat = append(lat, seen.Sub(start))
	}
	slices.Sort(lat)
	return lat, nil
}

func generatorName(i int) string { return fmt.Sprintf("gen-%05d", i) }

// createGenerator creates a generator of data {rev: "0", payload}.
func createGenerator(ctx context.Context, cmgs dynamic.ResourceInterface, name, payload string) error {
	g := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": generators.GroupVersion().String(), "kind": "ConfigMapGenerator",
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{"data": map[string]any{"rev": "0", "payload": payload}},
	}}
	for {
		_, err := cmgs.Create(ctx, g, metav1.CreateOptions{})
		if !apierrors.IsNotFound(err) { // NotFound until the CRD is served
			if err != nil {
				return fmt.Errorf("create ConfigMapGenerator %s: %w", name, err)
			}
			return nil
		}
		if err := sleep(ctx, 50*time.Millisecond); err != nil {
			return err
		}
	}
}

// cleanGenerated deletes the namespace's generators, then their ConfigMaps.
func cleanGenerated(ctx context.Context, e *env, cmgs dynamic.ResourceInterface, ns string) error {
	if err := cmgs.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		return fmt.Errorf("delete ConfigMapGenerators in %s: %w", ns, err)
	}
	if err := e.clients.cs.CoreV1().ConfigMaps(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		return fmt.Errorf("delete ConfigMaps in %s: %w", ns, err)
	}
	return nil
}

// installGeneratorCRD creates the CRD that `kubectl-reflect crd print
// configmap-generator` prints.
func installGeneratorCRD(ctx context.Context, e *env) error {
	out, err := exec.CommandContext(ctx, e.tools.reflect, "crd", "print", "configmap-generator").Output()
	if err != nil {
		return fmt.Errorf("kubectl-reflect crd print configmap-generator: %w", err)
	}
	crd := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(out, &crd.Object); err != nil {
		return fmt.Errorf("the ConfigMapGenerator CRD: %w", err)
	}
	dc, err := dynamic.NewForConfig(e.clients.cfg)
	if err != nil {
		return fmt.Errorf("dynamic client: %w", err)
	}
	if _, err := dc.Resource(crds).Create(ctx, crd, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create the ConfigMapGenerator CRD: %w", err)
	}
	return nil
}

// buildCRCMG builds the controller-runtime controller, a module of its own
// (see test/bench/crcmg), into the benchmark's temp dir.
func buildCRCMG(ctx context.Context, e *env) (string, error) {
	dir, err := filepath.Abs(e.cfg.crcmg)
	if err != nil {
		return "", err
	}
	out := filepath.Join(filepath.Dir(e.tools.reflect), "crcmg")
	e.logf("building the controller-runtime controller in %s", dir)
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", out, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build %s: %w: %s", dir, err, b)
	}
	return out, nil
}

func fileSize(path string) (int64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}
