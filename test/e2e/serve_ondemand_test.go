package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
	"github.com/kubectl-reflect/kubectl-reflect/test/testkit"
)

// createDeployment creates a Deployment of no replicas in ns. The control
// plane runs no deployment controller: its status holds still.
func createDeployment(t *testing.T, cs kubernetes.Interface, ns, name string) {
	t.Helper()
	labels := map[string]string{"app": name}
	zero := int32(0)
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: &zero,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "example.invalid/none"}}},
			},
		},
	}
	if _, err := cs.AppsV1().Deployments(ns).Create(context.Background(), d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// daemonInfo reads what the daemon publishes of itself.
func (d *daemon) info(t *testing.T) (info struct {
	Resources []string
	OnDemand  bool
}) {
	t.Helper()
	b, err := os.ReadFile(strings.TrimSuffix(d.kubeconfig, ".kubeconfig") + ".json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &info); err != nil {
		t.Fatal(err)
	}
	return info
}

// TestServeOnDemandMatchesKubectl: plain kubectl through a daemon started
// with `serve cm` gets kinds it was not started with (deployments, roles)
// as from the API server; the daemon's Info then names them. A daemon
// started with no kind serves every kind so.
func TestServeOnDemandMatchesKubectl(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	createDeployment(t, cs, ns, "web")
	createCM(t, cs, ns, "a", nil, "k", "1")
	d := startServe(t, cp, "cm")
	if info := d.info(t); !info.OnDemand || slices.Contains(info.Resources, "deployments.v1.apps") {
		t.Errorf("Info at start = %+v, want on demand, no deployments", info)
	}
	for _, args := range [][]string{
		{"get", "deploy", "-n", ns},
		{"get", "deployments.apps", "-n", ns, "-o", "name"},
		{"get", "deploy/web", "-n", ns, "-o", "jsonpath={.metadata.name} {.spec.replicas}"},
		{"get", "roles,cm", "-n", ns},
	} {
		want, got := kubectlBoth(t, cp, d, args...)
		want[0], got[0] = normalizeAge(want[0]), normalizeAge(got[0])
		if got != want {
			t.Errorf("%v through the daemon:\n%s\n%s\nexit %s\n--- from the API server:\n%s\n%s\nexit %s", args, got[0], got[1], got[2], want[0], want[1], want[2])
		}
	}
	if info := d.info(t); !slices.Contains(info.Resources, "deployments.v1.apps") || !slices.Contains(info.Resources, "roles.v1.rbac.authorization.k8s.io") {
		t.Errorf("Info after = %+v, want deployments and roles added", info)
	}

	all := startServe(t, cp) // no kind: all on demand
	want, got := kubectlBoth(t, cp, all, "get", "cm,deploy", "-n", ns)
	want[0], got[0] = normalizeAge(want[0]), normalizeAge(got[0])
	if got != want {
		t.Errorf("serve with no kind:\n%q\n--- from the API server:\n%q", got, want)
	}
}

// TestServeOnDemandForbidden: a daemon of a user who may not list
// secrets answers kubectl's first request of them with the API server's
// 403 (kubectl prints what it prints from the server), keeps no reflector
// of them, and `kubectl reflect get` through it fails as without it.
func TestServeOnDemandForbidden(t *testing.T) {
	cp := cluster.Get(t)
	dir := t.TempDir()
	d := startServeIn(t, dir, cp.UserKubeconfig())
	for range 2 { // the second request asks the server again
		want, wantErr, wantCode := kubectl(t, cp.UserKubeconfig(), "get", "secrets", "-A", "--cache-dir", filepath.Join(dir, "cache-apiserver"))
		_, stderr, code := kubectl(t, d.kubeconfig, "get", "secrets", "-A", "--cache-dir", filepath.Join(dir, "cache-daemon"))
		if code != wantCode || stderr != wantErr || want != "" ||
			!strings.Contains(stderr, `Error from server (Forbidden): secrets is forbidden: User "`+controlplane.UnprivilegedUser+`" cannot list resource "secrets"`) {
			t.Errorf("through the daemon: exit %d %q; from the API server: exit %d %q", code, stderr, wantCode, wantErr)
		}
	}
	if info := d.info(t); len(info.Resources) != 0 {
		t.Errorf("Info = %+v, want no resource kept", info)
	}
	_, stderr, code := runOnce(t, []string{"XDG_RUNTIME_DIR=" + dir}, "get", "secrets", "-A", "--kubeconfig", cp.UserKubeconfig())
	assertKubectlError(t, cp.UserKubeconfig(), stderr, code, "get", "secrets", "-A", "--cache-dir", filepath.Join(dir, "cache-apiserver"))
}

// namespaceUserDaemon starts, as a user who may read ConfigMaps in one
// namespace only (ns, holding the config map "visible"), a daemon with
// the arguments serveArgs gives for ns (none if nil), in a runtime
// directory of its own.
func namespaceUserDaemon(t *testing.T, serveArgs func(ns string) []string) (cp *controlplane.ControlPlane, cs kubernetes.Interface, ns string, d *daemon) {
	t.Helper()
	cp = cluster.Get(t)
	cs = admin(t, cp)
	ns = namespace(t, cs)
	createCM(t, cs, ns, "visible", nil)
	allowConfigMapsOnly(t, ns)
	var args []string
	if serveArgs != nil {
		args = serveArgs(ns)
	}
	return cp, cs, ns, startServeIn(t, t.TempDir(), cp.UserKubeconfig(), args...)
}

// assertUserKubectl checks that kubectl prints through d what it prints
// from the API server for the user of cp.UserKubeconfig, each run of args.
func assertUserKubectl(t *testing.T, cp *controlplane.ControlPlane, d *daemon, runs ...[]string) {
	t.Helper()
	for _, args := range runs {
		want, wantErr, wantCode := kubectl(t, cp.UserKubeconfig(), append(args, "--cache-dir", filepath.Join(d.dir, "cache-apiserver"))...)
		got, gotErr, gotCode := kubectl(t, d.kubeconfig, append(args, "--cache-dir", filepath.Join(d.dir, "cache-daemon"))...)
		if gotCode != wantCode || gotErr != wantErr || normalizeAge(got) != normalizeAge(want) {
			t.Errorf("kubectl %v through the daemon: exit %d %q\n%s\nfrom the API server: exit %d %q\n%s", args, gotCode, gotErr, got, wantCode, wantErr, want)
		}
	}
}

// assertStatusNamespace checks that `serve status` lists the daemon's
// configmaps of ns alone, holding one object.
func assertStatusNamespace(t *testing.T, cp *controlplane.ControlPlane, d *daemon, ns string) {
	t.Helper()
	status := runIn(t, d.dir, "serve", "status", "--kubeconfig="+cp.UserKubeconfig())
	if !regexp.MustCompile(`(?m)^configmaps -n ` + regexp.QuoteMeta(ns) + ` +1 +[0-9]+ `).MatchString(status[0]) {
		t.Errorf("serve status: exit %s, stderr %q, stdout\n%s\nwant configmaps -n %s with 1 object", status[2], status[1], status[0], ns)
	}
}

// TestServeNamespaceScopedUser: a user who may read ConfigMaps in one
// namespace only, whom the API server refuses them in every namespace,
// gets them through a daemon of theirs from a cache of that namespace
// alone: plain kubectl prints what it prints from the API server (the
// table, one object, a watch; a client-go informer syncs and follows),
// and the API server's 403 for every namespace, for another namespace
// and for another kind; `serve status` shows the namespace's cache, and
// `kubectl reflect get` and `watch` read it too.
func TestServeNamespaceScopedUser(t *testing.T) {
	cp, cs, ns, d := namespaceUserDaemon(t, nil)
	assertUserKubectl(t, cp, d,
		[]string{"get", "cm", "-n", ns},
		[]string{"get", "cm", "visible", "-n", ns, "-o", "yaml"},
		[]string{"get", "cm", "-A"},
		[]string{"get", "cm", "-n", "default"},
		[]string{"get", "secrets", "-n", ns},
	)
	assertStatusNamespace(t, cp, d, ns)

	w := startCmd(t, exec.Command(kubectlBinary, "get", "cm", "-n", ns, "-w", "-o", "name", "--kubeconfig", d.kubeconfig))
	w.WaitOutLine(`^configmap/visible$`) // listed: the watch starts from the list
	in := startInformer(t, d.config, ns) // client-go's: a streaming list of the namespace
	createCM(t, cs, ns, "later", nil, "k", "1")
	w.WaitOutLine(`^configmap/later$`)
	in.waitFor(t, "through the daemon", map[string]string{"visible": "", "later": "1"})

	env := []string{"XDG_RUNTIME_DIR=" + d.dir}
	user := "--kubeconfig=" + cp.UserKubeconfig()
	for _, args := range [][]string{{"get", "cm", "-n", ns}, {"get", "cm", "visible", "-n", ns, "-o", "name"}} {
		want, _, _ := kubectl(t, cp.UserKubeconfig(), args...)
		got, stderr, code := runOnce(t, env, append(args, user)...)
		if code != 0 || normalizeAge(got) != normalizeAge(want) {
			t.Errorf("%v through the daemon: exit %d, stderr %q, stdout\n%s\nkubectl's:\n%s", args, code, stderr, got, want)
		}
	}
	_, stderr, code := runOnce(t, env, "get", "secrets", "-n", ns, user)
	assertKubectlError(t, cp.UserKubeconfig(), stderr, code, "get", "secrets", "-n", ns)
	out, stderr, code := runOnce(t, env, "watch", "cm", "visible", "-n", ns, "-o", "name", "--max-events", "1", user)
	if code != 0 || out != "configmap/visible\n" {
		t.Errorf("watch through the daemon: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
}

// TestServeRefusedNamespace: through the daemon of a user allowed one
// namespace, a request of a namespace they may not read is refused as at
// the API server, and costs one LIST there once the daemon knows every
// namespace is refused (the first request tries every namespace, then that
// one), as kubectl's own request would.
func TestServeRefusedNamespace(t *testing.T) {
	cp := cluster.Get(t)
	ns := namespace(t, admin(t, cp))
	allowConfigMapsOnly(t, ns)
	counted := newCountedServerAs(t, cp, cp.UserConfig())
	d := startServeIn(t, t.TempDir(), counted.kubeconfig)
	for range 3 {
		assertUserKubectl(t, cp, d, []string{"get", "cm", "-n", "default"})
	}
	var lists []string
	for _, u := range counted.reads() {
		if p, _, _ := strings.Cut(u, "?"); strings.HasSuffix(p, "/configmaps") {
			lists = append(lists, p)
		}
	}
	want := []string{"/api/v1/configmaps", "/api/v1/namespaces/default/configmaps", "/api/v1/namespaces/default/configmaps", "/api/v1/namespaces/default/configmaps"}
	if !slices.Equal(lists, want) {
		t.Errorf("LISTs at the API server %q, want %q", lists, want)
	}
}

// TestServeNamespaceFlag: `serve KIND -n NS` caches the kind in NS alone,
// which a user allowed NS only may do (without -n the daemon lists every
// namespace and cannot start for them): it says so, `serve status` shows
// it, and plain kubectl reads NS through it as from the API server and
// gets the server's 403 for every namespace.
func TestServeNamespaceFlag(t *testing.T) {
	cp, _, ns, d := namespaceUserDaemon(t, func(ns string) []string { return []string{"configmaps", "-n", ns} })
	if want := "Serving configmaps -n " + ns + " read-only"; !strings.Contains(d.Stderr.String(), want) {
		t.Errorf("serve said %q, want %q", d.Stderr.String(), want)
	}
	assertStatusNamespace(t, cp, d, ns)
	assertUserKubectl(t, cp, d,
		[]string{"get", "cm", "-n", ns},
		[]string{"get", "cm", "visible", "-n", ns, "-o", "json"},
		[]string{"get", "cm", "-A"},
	)
}

// TestServeOnDemandOneWatch: concurrent first requests of a kind through
// the daemon make one LIST and one WATCH at the API server.
func TestServeOnDemandOneWatch(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	counted := newCountedServer(t, cp)
	d := startServeIn(t, t.TempDir(), counted.kubeconfig, "configmaps")
	dcs := kubernetes.NewForConfigOrDie(d.config)
	const clients = 8
	start := make(chan struct{})
	errs := make(chan error, clients)
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			<-start
			_, err := dcs.CoreV1().ServiceAccounts("").List(context.Background(), metav1.ListOptions{})
			errs <- err
		})
	}
	close(start)
	wg.Wait()
	for range clients {
		if err := <-errs; err != nil {
			t.Errorf("list through the daemon: %v", err)
		}
	}
	// The WATCH is open once the daemon has a change made after the lists.
	sa, err := cs.CoreV1().ServiceAccounts(ns).Create(context.Background(), &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "after"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	for {
		_, err := dcs.CoreV1().ServiceAccounts(ns).List(ctx, metav1.ListOptions{ResourceVersion: sa.ResourceVersion, Limit: 1})
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the daemon did not reach resourceVersion %s: %v", sa.ResourceVersion, err)
		}
	}
	var lists, watches []string
	for _, u := range counted.all() {
		if !strings.HasPrefix(u, "/api/v1/serviceaccounts") {
			continue
		}
		if strings.Contains(u, "watch=") {
			watches = append(watches, u)
		} else {
			lists = append(lists, u)
		}
	}
	if len(lists) != 1 || len(watches) != 1 {
		t.Errorf("%d concurrent first lists made %d LISTs and %d WATCHes at the API server, want 1 and 1:\n%s",
			clients, len(lists), len(watches), strings.Join(append(lists, watches...), "\n"))
	}
}

// shadeCRD is a custom resource whose short name "quota" shadows the
// built-in one of resourcequotas.
var shadeCRD = testkit.CRD{
	Group: "ondemand.example.com", Kind: "Shade", Plural: "shades", Singular: "shade", ShortNames: []string{"quota"},
	Schema: "{type: object, x-kubernetes-preserve-unknown-fields: true}",
}

// TestServeOnDemandShortNameShadow: a daemon that caches only a custom
// resource whose short name shadows a built-in one ("quota") resolves the
// short name as the API server does (its discovery is a copy of the
// server's, in its order): `kubectl reflect get quota` through it prints
// the resource quotas, as without it and as kubectl.
func TestServeOnDemandShortNameShadow(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	applyCRD(t, cp.AdminKubeconfig(), shadeCRD.Name(), shadeCRD.YAML())
	t.Cleanup(func() {
		kubectl(t, cp.AdminKubeconfig(), "delete", "crd", shadeCRD.Name(), "--wait=false")
	})
	shade := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "ondemand.example.com/v1", "kind": "Shade", "metadata": map[string]any{"name": "a-shade"},
	}}
	gvr := schema.GroupVersionResource{Group: "ondemand.example.com", Version: "v1", Resource: "shades"}
	if _, err := dynamic.NewForConfigOrDie(cp.AdminConfig()).Resource(gvr).Namespace(ns).Create(context.Background(), shade, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	quota := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "a-quota"},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("5")}}}
	if _, err := cs.CoreV1().ResourceQuotas(ns).Create(context.Background(), quota, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	startServeIn(t, dir, cp.AdminKubeconfig(), "shades.ondemand.example.com")
	args := []string{"get", "quota", "-n", ns, "-o", "name", "--kubeconfig", cp.AdminKubeconfig()}
	got := runIn(t, dir, args...)
	without := runIn(t, dir, append(args, "--no-daemon")...)
	want, _, _ := kubectl(t, cp.AdminKubeconfig(), "get", "quota", "-n", ns, "-o", "name", "--cache-dir", filepath.Join(dir, "cache"))
	if got[0] != "resourcequota/a-quota\n" || got != without || got[0] != want {
		t.Errorf("get quota through the daemon: %q; without: %q; kubectl: %q; want the resource quota", got, without, want)
	}
}

// TestServeOnDemandReleaseIdle: with --release-idle, a kind added on
// demand that nobody reads any more is released (its WATCH at the API
// server ends, the daemon's Info drops it) while the kind given stays, and
// the next request adds it again with one more LIST.
func TestServeOnDemandReleaseIdle(t *testing.T) {
	cp := cluster.Get(t)
	counted := newCountedServer(t, cp)
	d := startServeIn(t, t.TempDir(), counted.kubeconfig, "configmaps", "--release-idle", "1s")
	dcs := kubernetes.NewForConfigOrDie(d.config)
	listed := func() int {
		n := 0
		for _, u := range counted.reads() {
			if strings.HasPrefix(u, "/api/v1/serviceaccounts") {
				n++
			}
		}
		return n
	}
	for round := 1; round <= 2; round++ {
		if _, err := dcs.CoreV1().ServiceAccounts("").List(context.Background(), metav1.ListOptions{}); err != nil {
			t.Fatalf("round %d: list through the daemon: %v", round, err)
		}
		if n := listed(); n != round {
			t.Errorf("round %d: %d LISTs of serviceaccounts at the API server, want %d", round, n, round)
		}
		// The daemon's Info names the kind once it is added (a moment after
		// the answer), and no more once it is released (a second later).
		ctx, cancel := context.WithTimeout(context.Background(), patience)
		for added := false; ; {
			cached := slices.Contains(d.info(t).Resources, "serviceaccounts.v1.")
			if added = added || cached; added && !cached {
				break
			}
			if ctx.Err() != nil {
				cancel()
				t.Fatalf("round %d: serviceaccounts added %v, still cached %s after the list: Info %+v", round, added, patience, d.info(t))
			}
			<-time.After(20 * time.Millisecond) // the daemon's Info file has no change notification
		}
		cancel()
		if info := d.info(t); !slices.Contains(info.Resources, "configmaps.v1.") {
			t.Errorf("round %d: Info %+v, want configmaps (given) kept", round, info)
		}
	}
	_, stderr, code := runOnce(t, nil, "serve", "cm", "--release-idle", "-1s", "--kubeconfig", cp.AdminKubeconfig())
	assertOneLineError(t, stderr, code, "error: invalid --release-idle -1s: want 0 or more")
}
