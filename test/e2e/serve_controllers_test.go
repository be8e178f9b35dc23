package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/builtin/configmapgenerator"
)

// TestServeControllers: `serve --controllers configmap-generator` (no
// KIND: the controller's kinds are served) generates the ConfigMap of a
// ConfigMapGenerator, logs the reconcile on stderr, opens one WATCH of
// configmaps and one of configmapgenerators at the API server for the
// served kinds and the controller together, serves the generators, shows
// the controller and a LAG column in `serve status`, counts events in,
// watch restarts and the subscriber lag at /metrics, is ready at /readyz,
// reconciles the generator again on SIGHUP (a new reconcile line), and
// stops on SIGINT with exit 0.
func TestServeControllers(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	if out, errOut, code := runOnce(t, nil, "crd", "install", "configmap-generator", "--kubeconfig", cp.AdminKubeconfig()); code != 0 {
		t.Fatalf("crd install: exit %d\n%s%s", code, out, errOut)
	}
	counted := newCountedServer(t, cp)
	d := startServeIn(t, t.TempDir(), counted.kubeconfig, "--controllers", "configmap-generator")
	d.WaitStderr("configmap-generator: ready\n")

	createGenerator(t, dynamic.NewForConfigOrDie(cp.AdminConfig()), ns, "app")
	waitForCM(t, cs, ns, "app")
	d.WaitStderr(" configmap-generator " + ns + "/app ")

	var cmWatches, genWatches []string
	for _, u := range counted.all() {
		switch {
		case !strings.Contains(u, "watch="):
		case strings.Contains(u, "/configmaps?"):
			cmWatches = append(cmWatches, u)
		case strings.Contains(u, "/configmapgenerators?"):
			genWatches = append(genWatches, u)
		}
	}
	if len(cmWatches) != 1 || len(genWatches) != 1 {
		t.Errorf("the API server was asked %d configmaps WATCHes and %d configmapgenerators WATCHes, want one each (the daemon's and the controller's shared):\n%s",
			len(cmWatches), len(genWatches), strings.Join(counted.all(), "\n"))
	}
	out, errOut, code := kubectl(t, d.kubeconfig, "get", "configmapgenerators", "-n", ns, "-o", "name", "--cache-dir", filepath.Join(d.dir, "cache"))
	if code != 0 || out != "configmapgenerator.kubectl-reflect.io/app\n" {
		t.Errorf("kubectl get configmapgenerators through the daemon: %q %q exit %d", out, errOut, code)
	}

	// Some updates seen by a watch through the daemon: events in, and
	// their delivery lag.
	createCM(t, cs, ns, "x", nil)
	d.caughtUp(t, cs)
	w := startCmd(t, exec.Command(kubectlBinary, "get", "cm", "x", "-n", ns, "-w", "--kubeconfig", d.kubeconfig, "--cache-dir", filepath.Join(d.dir, "cache")))
	if h, row := w.Next(), w.Next(); !strings.HasPrefix(h, "NAME") || !strings.HasPrefix(row, "x ") {
		t.Fatalf("the watch through the daemon starts with %q, %q", h, row)
	}
	for i := range 3 {
		updateCM(t, cs, ns, "x", "k", strconv.Itoa(i))
	}
	for range 3 {
		if line := w.Next(); !strings.HasPrefix(line, "x ") {
			t.Fatalf("the watch through the daemon printed %q, want x", line)
		}
	}
	metrics := daemonGet(t, d, "/metrics", true)
	if n := metricValue(metrics, `kubectl_reflect_serve_events_received_total{resource="configmaps",type="APPLIED"}`); n < 4 {
		t.Errorf("configmaps events received %v, want 4 at least:\n%s", n, metrics)
	}
	if n := metricValue(metrics, `kubectl_reflect_serve_watch_restarts_total{resource="configmaps"}`); n != 0 {
		t.Errorf("configmaps watch restarts %v, want 0", n)
	}
	count := metricValue(metrics, `kubectl_reflect_serve_subscriber_lag_seconds_count{resource="configmaps"}`)
	sum := metricValue(metrics, `kubectl_reflect_serve_subscriber_lag_seconds_sum{resource="configmaps"}`)
	if count < 3 || sum <= 0 || sum/count > 10 {
		t.Errorf("configmaps subscriber lag: %v deliveries, %vs in all; want 3 at least (the updates watched), each under 10s", count, sum)
	}
	if n := metricValue(metrics, `controller_runtime_reconcile_total{controller="configmap-generator",result="success"}`); n < 1 {
		t.Errorf("the controller's reconciles are not at /metrics: %v", n)
	}
	if got := daemonGet(t, d, "/readyz", true); got != "ok" {
		t.Errorf("/readyz = %q, want ok", got)
	}

	out, errOut, code = runOnce(t, []string{"XDG_RUNTIME_DIR=" + d.dir}, "serve", "status", "--kubeconfig", counted.kubeconfig)
	t.Logf("serve status:\n%s", out)
	lines := strings.Split(out, "\n")
	if code != 0 || len(lines) < 4 || strings.Join(strings.Fields(lines[3]), " ") != "RESOURCE OBJECTS RESOURCEVERSION WATCHERS EVENTS SENT LAG" {
		t.Fatalf("serve status: exit %d\n%s%s", code, out, errOut)
	}
	var ctrl []string
	for i, l := range lines {
		if strings.HasPrefix(l, "CONTROLLER ") && i+1 < len(lines) {
			ctrl = strings.Fields(lines[i+1])
		}
		if f := strings.Fields(l); len(f) == 6 && f[0] == "configmaps" {
			if _, err := time.ParseDuration(f[5]); err != nil {
				t.Errorf("configmaps LAG %q is no duration: %v", f[5], err)
			}
		}
	}
	if len(ctrl) != 3 || ctrl[0] != "configmap-generator" || ctrl[1] != "true" || ctrl[2] == "0" {
		t.Errorf("serve status shows the controller as %q, want configmap-generator true and its reconciles:\n%s", ctrl, out)
	}

	// SIGHUP: every generator reconciled again, as run-controller does.
	reconciled := " configmap-generator " + ns + "/app "
	before := strings.Count(d.Stderr.String(), reconciled)
	if err := d.Cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitStderrCount(t, d, reconciled, before+1)

	if err := d.Cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code := d.Wait(); code != 0 {
		t.Errorf("the daemon exited %d after SIGINT, want 0", code)
	}
}

// waitStderrCount waits until the daemon's stderr says s n times at least.
func waitStderrCount(t *testing.T, d *daemon, s string, n int) {
	t.Helper()
	deadline := time.After(patience)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for strings.Count(d.Stderr.String(), s) < n {
		select {
		case <-deadline:
			t.Fatalf("stderr did not say %q %d times within %s; stderr:\n%s", s, n, patience, d.Stderr.String())
		case <-tick.C:
		}
	}
}

// TestServeControllersNamespace: with -n, the daemon's controllers run in
// that namespace alone, on caches of it: a generator there gets its
// ConfigMap; one made before it in another namespace is never reconciled
// (a controller of every namespace would have seen it first).
func TestServeControllersNamespace(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns, other := namespace(t, cs), namespace(t, cs)
	if out, errOut, code := runOnce(t, nil, "crd", "install", "configmap-generator", "--kubeconfig", cp.AdminKubeconfig()); code != 0 {
		t.Fatalf("crd install: exit %d\n%s%s", code, out, errOut)
	}
	d := startServeIn(t, t.TempDir(), cp.AdminKubeconfig(), "--controllers", "configmap-generator", "-n", ns)
	d.WaitStderr("configmap-generator: ready\n")
	dc := dynamic.NewForConfigOrDie(cp.AdminConfig())
	createGenerator(t, dc, other, "app")
	createGenerator(t, dc, ns, "app")
	waitForCM(t, cs, ns, "app")
	d.WaitStderr(" configmap-generator " + ns + "/app ")
	if stderr := d.Stderr.String(); strings.Contains(stderr, other+"/") || !strings.Contains(stderr, "running configmap-generator in namespace "+ns) {
		t.Errorf("the daemon reconciled in another namespace, or did not say where it runs:\n%s", stderr)
	}
	if _, err := cs.CoreV1().ConfigMaps(other).Get(context.Background(), "app", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a ConfigMap generated in %s: %v, want NotFound", other, err)
	}
}

// TestServeControllersBadName: an unknown controller is one error line and
// exit 1, before anything starts.
func TestServeControllersBadName(t *testing.T) {
	cp := cluster.Get(t)
	_, stderr, code := runOnce(t, []string{"XDG_RUNTIME_DIR=" + t.TempDir()}, "serve", "cm", "--controllers", "configmap-generator,nope", "--kubeconfig", cp.AdminKubeconfig())
	assertOneLineError(t, stderr, code, `error: unknown controller "nope"`)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
}

// createGenerator creates a ConfigMapGenerator of one key.
func createGenerator(t *testing.T, dc dynamic.Interface, ns, name string) {
	t.Helper()
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": configmapgenerator.GVR.GroupVersion().String(), "kind": "ConfigMapGenerator",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec":     map[string]any{"data": map[string]any{"a": "1"}},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	if _, err := dc.Resource(configmapgenerator.GVR).Namespace(ns).Create(ctx, u, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating generator %s: %v", name, err)
	}
}

// waitForCM waits, with a watch of the API server, until ConfigMap
// ns/name exists.
func waitForCM(t *testing.T, cs kubernetes.Interface, ns, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	sel := fields.OneTermEqualSelector("metadata.name", name).String()
	list, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{FieldSelector: sel})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) > 0 {
		return
	}
	w, err := cs.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{FieldSelector: sel, ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for ev := range w.ResultChan() {
		if _, ok := ev.Object.(*corev1.ConfigMap); ok && ev.Type == watch.Added {
			return
		}
	}
	t.Fatalf("ConfigMap %s/%s did not appear within %s", ns, name, patience)
}

// metricValue is the value of the sample named series (name{labels}) in
// a Prometheus text exposition; -1 if it is not there.
func metricValue(exposition, series string) float64 {
	for line := range strings.SplitSeq(exposition, "\n") {
		if rest, ok := strings.CutPrefix(line, series+" "); ok {
			var v float64
			if _, err := fmt.Sscan(rest, &v); err == nil {
				return v
			}
		}
	}
	return -1
}

// TestServeControllersInputGone: when a kind the controller reads goes
// away for good (its CRD deleted), the daemon stops with one error line
// that names it, exit 1, and its files removed.
func TestServeControllersInputGone(t *testing.T) {
	cp := cluster.Get(t)
	if out, errOut, code := runOnce(t, nil, "crd", "install", "configmap-generator", "--kubeconfig", cp.AdminKubeconfig()); code != 0 {
		t.Fatalf("crd install: exit %d\n%s%s", code, out, errOut)
	}
	d := startServe(t, cp, "--controllers", "configmap-generator", "-q")
	if got := daemonGet(t, d, "/readyz", true); got != "ok" {
		t.Errorf("/readyz = %q, want ok", got)
	}
	if out, errOut, code := kubectl(t, cp.AdminKubeconfig(), "delete", "crd", "configmapgenerators.kubectl-reflect.io"); code != 0 {
		t.Fatalf("kubectl delete crd: exit %d\n%s%s", code, out, errOut)
	}
	if code := d.Wait(); code != 1 {
		t.Errorf("the daemon exited %d after its controller's kind was deleted, want 1", code)
	}
	stderr := d.Stderr.String()
	last := stderr[strings.LastIndex(strings.TrimRight(stderr, "\n"), "\n")+1:]
	t.Logf("the daemon's stderr:\n%s", stderr)
	if !strings.HasPrefix(last, "error: ") || !strings.Contains(last, "configmapgenerators") {
		t.Errorf("the daemon's last line %q, want an error naming configmapgenerators; stderr:\n%s", last, stderr)
	}
	if strings.Contains(stderr, " configmap-generator ") {
		t.Errorf("-q printed reconcile lines:\n%s", stderr)
	}
	if _, err := os.Stat(d.kubeconfig); !os.IsNotExist(err) {
		t.Errorf("the kubeconfig is still there: %v", err)
	}
}
