package multicluster

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
	"github.com/kubectl-reflect/kubectl-reflect/test/testkit"
)

// event is one NDJSON event of watch -o json, or of kubectl get -w
// --output-watch-events -o json.
type event struct {
	Type    string `json:"type"`
	Context string `json:"context"`
	Object  struct {
		Metadata struct {
			Name            string `json:"name"`
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	} `json:"object"`
}

// key is what the comparison keeps of an event: kubectl's ADDED and
// MODIFIED are APPLIED.
func (e event) key() string {
	typ := e.Type
	if typ == "ADDED" || typ == "MODIFIED" {
		typ = "APPLIED"
	}
	return typ + " " + e.Object.Metadata.Name + "@" + e.Object.Metadata.ResourceVersion
}

func next(t *testing.T, p *testkit.Proc) event {
	t.Helper()
	var e event
	if line := p.Next(); json.Unmarshal([]byte(line), &e) != nil {
		t.Fatalf("not an event: %q", line)
	}
	return e
}

// update applies config map name in ns with i as its data.
func update(cs kubernetes.Interface, ns, name string, i int) error {
	cm := corev1ac.ConfigMap(name, ns).WithData(map[string]string{"i": strconv.Itoa(i)})
	_, err := cs.CoreV1().ConfigMaps(ns).Apply(context.Background(), cm, metav1.ApplyOptions{FieldManager: "test", Force: true})
	return err
}

// TestWatchPerClusterUnderLoad: the stream of three contexts, while each
// cluster takes a burst of parallel updates, holds for each context
// exactly the events kubectl get -w of that context alone prints, in its
// order.
func TestWatchPerClusterUnderLoad(t *testing.T) {
	f := fleet.Get(t)
	cs := clients(t, f)
	ns := namespaceIn(t, cs)
	kc := kubeconfig(t, f, ns, nil)
	const objects, updates = 3, 60
	for _, c := range cs {
		for i := range objects {
			createCM(t, c, ns, fmt.Sprint("cm-", i))
		}
	}
	names := f.Names()
	w := start(t, kc, "watch", "cm", "-o", "json", "--context", strings.Join(names, ","), "--max-events", strconv.Itoa(len(names)*(objects+updates)))
	kubectls := map[string]*testkit.Proc{}
	for _, n := range names {
		k := testkit.StartProc(t, exec.Command(kubectlBinary, "get", "cm", "-w", "--output-watch-events", "-o", "json", "--context", n, "--kubeconfig", kc))
		kubectls[n] = k
	}
	got := map[string][]string{}
	for range len(names) * objects { // every initial list, before the burst
		e := next(t, w)
		got[e.Context] = append(got[e.Context], e.key())
	}
	for _, n := range names {
		for range objects {
			next(t, kubectls[n])
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(names)*updates)
	for _, n := range names {
		for i := range updates {
			wg.Go(func() { errs <- update(cs[n], ns, fmt.Sprint("cm-", i%objects), i) })
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for range len(names) * updates {
		e := next(t, w)
		got[e.Context] = append(got[e.Context], e.key())
	}
	for _, n := range names {
		var want []string
		for _, e := range got[n][:objects] { // the lists: kubectl's order is its own, the server's
			want = append(want, e)
		}
		for range updates {
			want = append(want, next(t, kubectls[n]).key())
		}
		if g := got[n]; !slices.Equal(g[objects:], want[objects:]) || len(g) != objects+updates {
			t.Errorf("context %s: %d events\n%s\nkubectl get -w --context %s:\n%s", n, len(g), strings.Join(g, "\n"), n, strings.Join(want, "\n"))
		}
	}
	if code := w.Wait(); code != 0 {
		t.Errorf("exit %d after --max-events: %s", code, w.Stderr.String())
	}
}

// TestWatchClusterRestart: one cluster's API server stopped mid-watch says
// so on lines of its context while the others go on streaming; started
// again, its context resumes (or relists) and reports what it missed, a
// deletion included.
func TestWatchClusterRestart(t *testing.T) {
	f := fleet.Get(t)
	cs := clients(t, f)
	ns := namespaceIn(t, cs)
	kc := kubeconfig(t, f, ns, nil)
	createCM(t, cs["west"], ns, "doomed")
	w := start(t, kc, "watch", "cm", "-o", "json", "--context", "east,west", "--watch-silence-timeout", "5s")
	if e := next(t, w); e.key() != "APPLIED doomed@"+e.Object.Metadata.ResourceVersion || e.Context != "west" {
		t.Fatalf("first event %+v, want west's doomed", e)
	}
	west := f.Cluster("west")
	ctx := context.Background()
	if err := west.StopAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	restarted := false
	t.Cleanup(func() {
		if !restarted {
			_ = west.StartAPIServer(ctx)
		}
	})
	createCM(t, cs["east"], ns, "while-west-is-away")
	if e := next(t, w); e.Context != "east" || e.Object.Metadata.Name != "while-west-is-away" {
		t.Errorf("with west away: %+v, want east's change", e)
	}
	w.WaitErrLine(`^context west: warning: `)
	if err := west.StartAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	restarted = true
	createCM(t, cs["west"], ns, "after")
	if err := cs["west"].CoreV1().ConfigMaps(ns).Delete(ctx, "doomed", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	var westEvents []string
	for len(westEvents) < 2 {
		if e := next(t, w); e.Context == "west" {
			westEvents = append(westEvents, e.Type+" "+e.Object.Metadata.Name)
		}
	}
	slices.Sort(westEvents) // a relist reports deletions first
	if want := []string{"APPLIED after", "DELETED doomed"}; !slices.Equal(westEvents, want) {
		t.Errorf("west after its restart: %v, want %v", westEvents, want)
	}
}

// TestWatchRevokedToken: a context whose credentials are refused (its
// token revoked) says so on lines of its own; the other contexts go on.
// It runs last of the tests that use west's unprivileged user.
func TestWatchRevokedToken(t *testing.T) {
	f := fleet.Get(t)
	cs := clients(t, f)
	ns := namespaceIn(t, cs)
	west := f.Cluster("west")
	grantReadConfigMaps(t, cs["west"], ns)
	kc := kubeconfig(t, f, ns, func(cfg *clientcmdapi.Config) {
		cfg.AuthInfos["west-user"] = &clientcmdapi.AuthInfo{Token: west.UserConfig().BearerToken}
		cfg.Contexts["west-user"] = &clientcmdapi.Context{Cluster: "west", AuthInfo: "west-user", Namespace: ns}
	})
	createCM(t, cs["west"], ns, "seen")
	w := start(t, kc, "watch", "cm", "-o", "json", "--context", "east,west-user")
	if e := next(t, w); e.Context != "west-user" || e.Object.Metadata.Name != "seen" {
		t.Fatalf("first event %+v, want west-user's seen", e)
	}
	if err := west.RevokeUserToken(context.Background()); err != nil {
		t.Fatal(err)
	}
	w.WaitErrLine(`^context west-user: warning: .*Unauthorized`)
	createCM(t, cs["east"], ns, "still")
	if e := next(t, w); e.Context != "east" || e.Object.Metadata.Name != "still" {
		t.Errorf("after west-user's token was revoked: %+v, want east's change", e)
	}
}

// grantReadConfigMaps lets UnprivilegedUser list and watch config maps in
// ns.
func grantReadConfigMaps(t *testing.T, cs kubernetes.Interface, ns string) {
	t.Helper()
	ctx := context.Background()
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "read-cm"}, Rules: []rbacv1.PolicyRule{{
		APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"},
	}}}
	if _, err := cs.RbacV1().Roles(ns).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "read-cm"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "read-cm"},
		Subjects:   []rbacv1.Subject{{Kind: "User", Name: controlplane.UnprivilegedUser}},
	}
	if _, err := cs.RbacV1().RoleBindings(ns).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestWatchKindInOneCluster: a kind that one cluster lacks is an error of
// that context alone; the others stream. (TestGetContextErrors installs
// the CRD in east: west never has it.)
func TestWatchKindInOneCluster(t *testing.T) {
	f := fleet.Get(t)
	cs := clients(t, f)
	ns := namespaceIn(t, cs)
	kc := kubeconfig(t, f, ns, nil)
	installWidgets(t, kc, "north")
	w := start(t, kc, "watch", "widgets", "-o", "json", "--context", "north,west")
	w.WaitErrLine(`^context west: error: the server doesn't have a resource type "widgets"$`)
	createWidget(t, kc, "north", "gear")
	if e := next(t, w); e.Context != "north" || e.Object.Metadata.Name != "gear" {
		t.Errorf("north's widget: %+v", e)
	}
}

// installWidgets installs the widgets CRD in context c and waits for it.
func installWidgets(t *testing.T, kc, c string) {
	t.Helper()
	path := writeFile(t, "crd.yaml", widgetsCRD.YAML())
	if out, errOut, code := kubectl(t, kc, "--context", c, "apply", "-f", path); code != 0 {
		t.Fatalf("installing the CRD in %s: %s %s", c, out, errOut)
	}
	if _, errOut, code := kubectl(t, kc, "--context", c, "wait", "--for=condition=Established", "crd/"+widgetsCRD.Name(), "--timeout=60s"); code != 0 {
		t.Fatal(errOut)
	}
}

// createWidget creates widget name in context c's namespace.
func createWidget(t *testing.T, kc, c, name string) {
	t.Helper()
	path := writeFile(t, name+".yaml", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: "+name+"}\n")
	if out, errOut, code := kubectl(t, kc, "--context", c, "create", "-f", path); code != 0 {
		t.Fatalf("creating widget %s in %s: %s %s", name, c, out, errOut)
	}
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := t.TempDir() + "/" + name
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
