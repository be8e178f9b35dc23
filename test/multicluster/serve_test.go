package multicluster

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/merge"
	"github.com/kubectl-reflect/kubectl-reflect/test/testkit"
)

// serveContexts starts serve with args across contexts and returns the
// kubeconfig it wrote (a context per cluster and "merged").
func serveContexts(t *testing.T, kc string, args ...string) (*testkit.Proc, string) {
	t.Helper()
	p := start(t, kc, append([]string{"serve"}, args...)...)
	line := p.WaitErrLine(`^kubeconfig: \S+ \(contexts `)
	path := regexp.MustCompile(`^kubeconfig: (\S+)`).FindStringSubmatch(line)[1]
	return p, path
}

// mergedClient is a clientset of the merged view of the daemon's
// kubeconfig served.
func mergedClient(t *testing.T, served string) kubernetes.Interface {
	t.Helper()
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: served}, &clientcmd.ConfigOverrides{CurrentContext: "merged"}).ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	return kubernetes.NewForConfigOrDie(cfg)
}

// TestServeContexts: serve --context a,b,c serves each cluster behind its
// own context of the kubeconfig it writes, exactly as kubectl reads the
// cluster, and their merged view, kubectl's table with the CONTEXT column
// first, the same as get across the contexts prints; get across the
// contexts reads the daemons (a cluster whose API server stopped is still
// answered); a kind one cluster lacks is one line.
func TestServeContexts(t *testing.T) {
	f := fleet.Get(t)
	cs := clients(t, f)
	ns := namespaceIn(t, cs)
	kc := kubeconfig(t, f, ns, nil)
	names := f.Names()
	for i, n := range names {
		createCM(t, cs[n], ns, "shared", "from", n)
		createCM(t, cs[n], ns, fmt.Sprint("only-", n), strings.Repeat("k", i+1), "v")
	}
	installWidgets(t, kc, "east")
	daemon, served := serveContexts(t, kc, "cm", "--context", strings.Join(names, ","))
	for _, n := range names {
		got, _, _ := kubectl(t, served, "--context", n, "get", "cm")
		want, _, _ := kubectl(t, kc, "--context", n, "get", "cm")
		if !slices.Equal(rows(got), rows(want)) {
			t.Errorf("context %s of the daemon's kubeconfig:\n%s\nkubectl --context %s:\n%s", n, got, n, want)
		}
	}
	merged, errOut, code := kubectl(t, served, "--context", "merged", "get", "cm", "-n", ns)
	ours, _, _ := run(t, kc, "get", "cm", "--context", strings.Join(names, ","))
	if code != 0 || !slices.Equal(rows(merged), rows(ours)) || !strings.HasPrefix(merged, "CONTEXT   NAME") {
		t.Errorf("kubectl get cm of the merged view (exit %d, %s):\n%s\nkubectl reflect get cm --context %s:\n%s", code, errOut, merged, strings.Join(names, ","), ours)
	}
	_, errOut, code = kubectl(t, served, "--context", "merged", "get", "widgets", "-n", ns)
	if want := `context west: the server could not find the requested resource`; code == 0 || strings.Count(strings.TrimSpace(errOut), "\n") > 0 || !strings.Contains(errOut, want) {
		t.Errorf("widgets of the merged view (west lacks the kind): exit %d, %q; want one line with %q", code, errOut, want)
	}

	w := testkit.StartProc(t, exec.Command(kubectlBinary, "--kubeconfig", served, "--context", "merged", "get", "cm", "-w", "-n", ns))
	for i, want := range rows(merged) {
		if got := rows(w.Next())[0]; got != want {
			t.Errorf("kubectl get -w of the merged view, line %d: %q, want %q", i, got, want)
		}
	}
	createCM(t, cs["west"], ns, "later")
	if got := rows(w.Next())[0]; got != "west later 0 _" {
		t.Errorf("kubectl get -w of the merged view, a change in west: %q", got)
	}

	ours, _, _ = run(t, kc, "get", "cm", "--context", strings.Join(names, ","))
	north := f.Cluster("north")
	ctx := context.Background()
	if err := north.StopAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := north.StartAPIServer(ctx); err != nil {
			t.Fatal(err)
		}
	}()
	again, errOut, code := run(t, kc, "get", "cm", "--context", strings.Join(names, ","))
	if code != 0 || !slices.Equal(rows(again), rows(ours)) {
		t.Errorf("get across the contexts with north's API server stopped: exit %d %s\n%s\nwant (from the daemons):\n%s", code, errOut, again, ours)
	}
	status, errOut, code := run(t, kc, "serve", "status", "--context", "east,west")
	if code != 0 || !regexp.MustCompile(`(?s)^Context east:\nDaemon pid \d+ .*\n\nContext west:\nDaemon pid \d+ `).MatchString(status) {
		t.Errorf("serve status --context east,west: exit %d %s\n%s", code, errOut, status)
	}
	stopped, errOut, code := run(t, kc, "serve", "stop", "--context", strings.Join(names, ","))
	if code != 0 || strings.Count(stopped, "Stopped the daemon pid") != len(names) {
		t.Errorf("serve stop --context %s: exit %d %s\n%s", strings.Join(names, ","), code, errOut, stopped)
	}
	if code := daemon.Wait(); code != 0 {
		t.Errorf("serve exited %d after serve stop: %s", code, daemon.Stderr.String())
	}
}

// TestServeMergedWatch: the merged view's LIST and WATCH to a client-go
// client: a watch resumed from an event's resourceVersion (a position in
// each cluster) sends every later change of every cluster and none before;
// a resourceVersion without a cluster's position is 410 Gone, one that is
// no composite 400; an informer (a streaming list first) holds every
// cluster's objects, told apart by their annotation.
func TestServeMergedWatch(t *testing.T) {
	f := fleet.Get(t)
	cs := clients(t, f)
	ns := namespaceIn(t, cs)
	kc := kubeconfig(t, f, ns, nil)
	_, served := serveContexts(t, kc, "cm", "--context", "east,west,north")
	mc := mergedClient(t, served)
	ctx := context.Background()
	list, err := mc.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := mc.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	createCM(t, cs["east"], ns, "a")
	first := nextEvent(t, w)
	createCM(t, cs["west"], ns, "b")
	createCM(t, cs["north"], ns, "c")
	if got := describe(first); got != "ADDED east/a" {
		t.Fatalf("first event %s, want ADDED east/a", got)
	}
	resumed, err := mc.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: first.Object.(metav1.Object).GetResourceVersion()})
	if err != nil {
		t.Fatal(err)
	}
	defer resumed.Stop()
	got := []string{describe(nextEvent(t, resumed)), describe(nextEvent(t, resumed))}
	slices.Sort(got)
	if want := []string{"ADDED north/c", "ADDED west/b"}; !slices.Equal(got, want) {
		t.Errorf("resumed after east/a: %v, want %v", got, want)
	}

	partial := merge.Version{"east": "1", "west": "1"}.String()
	_, err = mc.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: partial})
	if !apierrors.IsGone(err) && !apierrors.IsResourceExpired(err) {
		t.Errorf("a watch from a position in two clusters of three: %v, want 410 Gone", err)
	}
	_, err = mc.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{ResourceVersion: "12345", ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan})
	if !apierrors.IsBadRequest(err) {
		t.Errorf("a list at a cluster's own resourceVersion: %v, want 400 BadRequest", err)
	}

	factory := informers.NewSharedInformerFactoryWithOptions(mc, 0, informers.WithNamespace(ns))
	inf := factory.Core().V1().ConfigMaps().Informer()
	stop := make(chan struct{})
	defer close(stop)
	factory.Start(stop)
	syncCtx, cancel := context.WithTimeout(ctx, patience)
	defer cancel()
	if !cache.WaitForCacheSync(syncCtx.Done(), inf.HasSynced) {
		t.Fatal("the informer did not sync")
	}
	var held []string
	for _, o := range inf.GetStore().List() {
		held = append(held, describe(watch.Event{Type: watch.Added, Object: o.(*corev1.ConfigMap)}))
	}
	slices.Sort(held)
	if want := []string{"ADDED east/a", "ADDED north/c", "ADDED west/b"}; !slices.Equal(held, want) {
		t.Errorf("the informer holds %v, want %v", held, want)
	}
}

// describe is an event's type, its object's context and name.
func describe(e watch.Event) string {
	o, ok := e.Object.(metav1.Object)
	if !ok {
		return fmt.Sprintf("%s %T", e.Type, e.Object)
	}
	return string(e.Type) + " " + o.GetAnnotations()[merge.ContextAnnotation] + "/" + o.GetName()
}

func nextEvent(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	select {
	case e, ok := <-w.ResultChan():
		if !ok {
			t.Fatal(errors.New("the watch ended"))
		}
		return e
	case <-time.After(patience):
		t.Fatalf("no event within %s", patience)
	}
	return watch.Event{}
}

// TestServeContextsOfOneCluster: two contexts of one cluster and user
// (their namespaces aside) share one daemon, each context of the written
// kubeconfig in its own namespace.
func TestServeContextsOfOneCluster(t *testing.T) {
	f := fleet.Get(t)
	cs := clients(t, f)
	ns := namespaceIn(t, cs)
	other := testkit.Namespace(t, cs["east"])
	kc := kubeconfig(t, f, ns, func(cfg *clientcmdapi.Config) {
		cfg.Contexts["east-other"] = &clientcmdapi.Context{Cluster: "east", AuthInfo: "east", Namespace: other}
	})
	createCM(t, cs["east"], ns, "here")
	createCM(t, cs["east"], other, "there")
	p, served := serveContexts(t, kc, "cm", "--context", "east,east-other")
	for context, want := range map[string]string{"east": "here", "east-other": "there"} {
		out, errOut, _ := kubectl(t, served, "--context", context, "get", "cm", "-o", "name")
		if strings.TrimSpace(out) != "configmap/"+want {
			t.Errorf("context %s of the daemon's kubeconfig: %q %s, want configmap/%s", context, out, errOut, want)
		}
	}
	if n := strings.Count(p.Stderr.String(), "Serving configmaps"); n != 1 {
		t.Errorf("%d daemons for one cluster and user:\n%s", n, p.Stderr.String())
	}
}
