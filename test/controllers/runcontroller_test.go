package controllers

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/builtin/configmapgenerator"
)

// generators is a YAML stream of n generators gen-0 .. gen-(n-1) in ns.
func generators(ns string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "---\napiVersion: kubectl-reflect.io/v1alpha1\nkind: ConfigMapGenerator\nmetadata:\n  name: gen-%d\n  namespace: %s\nspec:\n  data:\n    i: \"%d\"\n", i, ns, i)
	}
	return b.String()
}

// TestRunControllerGracefulStop: SIGINT while generators are being
// reconciled one at a time stops the process with exit 0, and no work is
// lost: no reconcile is cut (none ends in an error), and every generator
// reconciled ok has its ConfigMap.
func TestRunControllerGracefulStop(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	p := runGenerator(t, cp, ns, "--concurrency", "1")
	if out, errOut, code := kubectlStdin(t, cp, generators(ns, 30), "apply", "-f", "-"); code != 0 {
		t.Fatalf("kubectl apply: exit %d\n%s%s", code, out, errOut)
	}
	p.WaitErrLine(`^\S+ configmap-generator ` + regexp.QuoteMeta(ns) + `/gen-\d+ \S+ \S+ ok$`)
	p.Signal(syscall.SIGINT)
	if code := p.Wait(); code != 0 {
		t.Fatalf("exit %d after SIGINT, want 0; stderr:\n%s", code, p.Stderr.String())
	}
	log := p.Stderr.String()
	if strings.Contains(log, "error") {
		t.Errorf("errors after a graceful stop:\n%s", log)
	}
	okLine := regexp.MustCompile(`^\S+ configmap-generator ` + regexp.QuoteMeta(ns) + `/(gen-\d+) \S+ \S+ ok$`)
	n := 0
	for l := range strings.Lines(log) {
		m := okLine.FindStringSubmatch(strings.TrimSuffix(l, "\n"))
		if m == nil {
			continue
		}
		n++
		cm, err := cs.CoreV1().ConfigMaps(ns).Get(context.Background(), m[1], metav1.GetOptions{})
		if err != nil || cm.Data["i"] != strings.TrimPrefix(m[1], "gen-") {
			t.Errorf("%s reconciled ok, but its ConfigMap: %v, %v", m[1], cm.Data, err)
		}
	}
	if n == 0 {
		t.Errorf("no reconcile logged:\n%s", log)
	}
}

// TestRunControllerReconcileAll: SIGHUP reconciles every generator again;
// a settled generator costs no write then (the API server counts no apply).
// A reconcile-all that meets a reconcile still due (the controller's own
// writes trigger one) merges into it, so SIGHUP is sent again until a
// reconcile-all of a settled generator is seen.
func TestRunControllerReconcileAll(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	p := runGenerator(t, cp, ns)
	applyGenerator(t, cp, ns, "app", "  data:\n    a: \"1\"\n  labels:\n    team: web\n")
	waitReady(t, cp, ns, "app", metav1.ConditionTrue, configmapgenerator.ReasonGenerated)
	waitConfigMap(t, cs, ns, "app", "generated", func(cm *corev1.ConfigMap) bool { return dataIs(cm, "a", "1") })
	all := regexp.MustCompile(fmt.Sprintf(`^\S+ configmap-generator %s/app reconcile-all \S+ ok$`, regexp.QuoteMeta(ns)))
	for attempt := 1; ; attempt++ {
		if attempt > 10 {
			t.Fatalf("no reconcile-all of a settled generator without an apply in 10 tries:\n%s", p.Stderr.String())
		}
		before := serverApplies(t, cs)
		p.Signal(syscall.SIGHUP)
		line := p.WaitErrLine(reconciled(ns, "app", ""))
		if !all.MatchString(line) {
			continue // a reconcile due anyway, which the reconcile-all joined
		}
		if after := serverApplies(t, cs); after == before {
			return
		}
	}
}

// serverApplies is the number of server-side applies (PATCH
// application/apply-patch+yaml) to configmaps and configmapgenerators the
// API server has answered, from its own metrics.
func serverApplies(t *testing.T, cs kubernetes.Interface) float64 {
	t.Helper()
	raw, err := cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(context.Background())
	if err != nil {
		t.Fatalf("reading the API server's metrics: %v", err)
	}
	total := 0.0
	for l := range strings.Lines(string(raw)) {
		if !strings.HasPrefix(l, "apiserver_request_total{") || !strings.Contains(l, `verb="APPLY"`) ||
			!(strings.Contains(l, `resource="configmaps"`) || strings.Contains(l, `resource="configmapgenerators"`)) {
			continue
		}
		f := strings.Fields(l)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			t.Fatalf("metric line %q: %v", l, err)
		}
		total += v
	}
	if total == 0 {
		t.Fatal("the API server counted no apply at all: the metric or its labels changed")
	}
	return total
}

// TestRunControllerDryRun: with --dry-run the controller reconciles and
// logs as usual but writes nothing: no ConfigMap, no status, no event.
func TestRunControllerDryRun(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	installCRD(t, cp)
	p := start(t, cp, "run-controller", "configmap-generator", "-n", ns, "--dry-run")
	p.WaitErrLine(`^running configmap-generator in namespace ` + regexp.QuoteMeta(ns) + ` \(dry run: nothing is written\)$`)
	applyGenerator(t, cp, ns, "app", "  data:\n    a: \"1\"\n")
	applyGenerator(t, cp, ns, "bad", "  data:\n    a/b: \"1\"\n")
	p.WaitErrLine(reconciled(ns, "app", "ok"))
	p.WaitErrLine(reconciled(ns, "bad", "terminal error"))
	ctx := context.Background()
	if _, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "app", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a dry run made ConfigMap app: %v", err)
	}
	for _, name := range []string{"app", "bad"} {
		if g := generator(t, cp, ns, name); len(g.Status.Conditions) > 0 || g.Status.GeneratedName != "" {
			t.Errorf("a dry run wrote the status of %s: %+v", name, g.Status)
		}
	}
	if evs, err := cs.EventsV1().Events(ns).List(ctx, metav1.ListOptions{}); err != nil || len(evs.Items) > 0 {
		t.Errorf("a dry run emitted events: %v %v", evs, err)
	}
}

// TestRunControllerQuiet: -q prints nothing, and the controller works.
func TestRunControllerQuiet(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	p := runGenerator(t, cp, ns, "-q")
	applyGenerator(t, cp, ns, "app", "  data:\n    a: \"1\"\n")
	waitReady(t, cp, ns, "app", metav1.ConditionTrue, configmapgenerator.ReasonGenerated)
	waitConfigMap(t, cs, ns, "app", "generated", func(cm *corev1.ConfigMap) bool { return dataIs(cm, "a", "1") })
	p.Signal(syscall.SIGTERM)
	if code := p.Wait(); code != 0 {
		t.Errorf("exit %d after SIGTERM", code)
	}
	if out, errOut := p.Stdout.String(), p.Stderr.String(); out != "" || errOut != "" {
		t.Errorf("-q printed stdout %q, stderr %q", out, errOut)
	}
}

// TestRunControllerMetrics: --metrics-addr serves /healthz, /readyz (200
// once synced) and /metrics with controller-runtime's metrics labelled by
// controller, counting what was reconciled.
func TestRunControllerMetrics(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	installCRD(t, cp)
	p := start(t, cp, "run-controller", "configmap-generator", "-n", ns, "--metrics-addr", "127.0.0.1:0")
	addr := regexp.MustCompile(`http://\S+`).FindString(p.WaitErrLine(`^serving /metrics, /healthz and /readyz on http://127\.0\.0\.1:\d+$`))
	p.WaitErrLine(`^configmap-generator: ready$`)
	for _, path := range []string{"/healthz", "/readyz"} {
		if code, body := httpGet(t, addr+path); code != http.StatusOK || body != "ok" {
			t.Errorf("GET %s: %d %q", path, code, body)
		}
	}
	applyGenerator(t, cp, ns, "app", "  data:\n    a: \"1\"\n")
	applyGenerator(t, cp, ns, "bad", "  data:\n    a/b: \"1\"\n")
	p.WaitErrLine(reconciled(ns, "app", "ok"))
	p.WaitErrLine(reconciled(ns, "bad", "terminal error"))
	_, body := httpGet(t, addr+"/metrics")
	for _, m := range []string{
		`controller_runtime_reconcile_total{controller="configmap-generator",result="success"}`,
		`controller_runtime_reconcile_total{controller="configmap-generator",result="error"}`,
		`controller_runtime_reconcile_errors_total{controller="configmap-generator"}`,
		`controller_runtime_terminal_reconcile_errors_total{controller="configmap-generator"}`,
	} {
		if v := metricValue(body, m); v < 1 {
			t.Errorf("%s = %v, want >= 1", m, v)
		}
	}
	for _, name := range []string{
		`controller_runtime_reconcile_time_seconds_count{controller="configmap-generator"}`,
		`controller_runtime_active_workers{controller="configmap-generator"}`,
		`controller_runtime_reconcile_panics_total{controller="configmap-generator"}`,
		`workqueue_adds_total{controller="configmap-generator",name="configmap-generator"}`,
		`workqueue_depth{controller="configmap-generator",name="configmap-generator",priority="0"}`,
		`workqueue_retries_total{controller="configmap-generator",name="configmap-generator"}`,
		`workqueue_queue_duration_seconds_count{controller="configmap-generator",name="configmap-generator"}`,
		`workqueue_longest_running_processor_seconds{controller="configmap-generator",name="configmap-generator"}`,
	} {
		if metricValue(body, name) < 0 {
			t.Errorf("no %s in /metrics", name)
		}
	}
}

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// metricValue is the value of the sample series (name and labels as
// Prometheus' text format prints them) in body, or -1 if it is not there.
func metricValue(body, series string) float64 {
	for l := range strings.Lines(body) {
		if rest, ok := strings.CutPrefix(l, series+" "); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			if err == nil {
				return v
			}
		}
	}
	return -1
}

// TestRunControllerAllNamespaces: with -A one process generates in every
// namespace (here with --concurrency and --debounce too).
func TestRunControllerAllNamespaces(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns1, ns2 := namespace(t, cs), namespace(t, cs)
	installCRD(t, cp)
	p := start(t, cp, "run-controller", "configmap-generator", "-A", "--concurrency", "2", "--debounce", "100ms")
	p.WaitErrLine(`^running configmap-generator in every namespace$`)
	applyGenerator(t, cp, ns1, "app", "  data:\n    a: \"1\"\n")
	applyGenerator(t, cp, ns2, "app", "  data:\n    a: \"2\"\n")
	waitConfigMap(t, cs, ns1, "app", "generated", func(cm *corev1.ConfigMap) bool { return dataIs(cm, "a", "1") })
	waitConfigMap(t, cs, ns2, "app", "generated", func(cm *corev1.ConfigMap) bool { return dataIs(cm, "a", "2") })
	p.WaitErrLine(reconciled(ns1, "app", "ok"))
}
