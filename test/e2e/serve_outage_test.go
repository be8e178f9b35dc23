package e2e

import (
	"context"
	"encoding/json"
	"maps"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// TestServeOutage: the daemon is cut off from the API server (by a proxy)
// while config maps change and are deleted, etcd is compacted and
// kube-apiserver restarts, so the daemon's watch cannot resume (410 Gone)
// and it relists. Its clients stay connected and end with the server's
// state, no deletion lost, no ghost: plain `kubectl get -w` through the
// daemon's kubeconfig, a client-go informer through it, and `kubectl
// reflect watch`, which finds the daemon. Then a new change reaches them
// all, as do those after kube-apiserver restarts again, the daemon
// connected. The test starts its own control plane: restarting the shared one
// would disturb the tests running beside it.
func TestServeOutage(t *testing.T) {
	cp, cs, ns, px := outageCluster(t)
	dir := t.TempDir()
	d := startServeIn(t, dir, cp.AdminKubeconfig(), "configmaps", "--server", px.URL())
	d.caughtUp(t, cs)

	kubectlW := startCmd(t, exec.Command(kubectlBinary, "get", "cm", "-n", ns, "-w", "--output-watch-events",
		"-o", `jsonpath={.type} {.object.metadata.name} {.object.data.k}{"\n"}`,
		"--kubeconfig", d.kubeconfig, "--cache-dir", filepath.Join(dir, "cache")))
	reflectW := startIn(t, dir, "watch", "cm", "-n", ns, "-o", "json", "--server", px.URL(), "--kubeconfig", cp.AdminKubeconfig())
	clients := []watchState{
		newLineState(t, "kubectl get -w through the daemon", kubectlW, kubectlEvent),
		newLineState(t, "kubectl reflect watch", reflectW, reflectEvent(t)),
		informerState{startInformer(t, d.config, ns)},
	}
	converge(t, cs, ns, clients)
	// kubectl opens its WATCH after it printed its list: the watchers
	// gauge, which no event announces, is read until it shows all three.
	if got := awaitConfigMapsMetric(t, d, "kubectl_reflect_serve_watchers", "3"); got != "3" {
		t.Fatalf("the daemon serves %s configmaps watches, want the three clients'", got)
	}
	relists := configMapsMetric(t, d, "kubectl_reflect_serve_relists_total")
	throughDaemon := kubernetes.NewForConfigOrDie(d.config)
	before := listRV(t, throughDaemon, ns)

	outage(t, cp, cs, ns, px)
	converge(t, cs, ns, clients)
	if got := configMapsMetric(t, d, "kubectl_reflect_serve_relists_total"); got == relists {
		t.Errorf("the daemon did not relist (relists %s before and after): its watch resumed without a 410 Gone", got)
	}
	// A resume from before the relist is 410 Expired, at the API server
	// (compacted) as at the daemon (it relisted, as the API server's watch
	// cache empties its history then): the client lists again.
	for who, c := range map[string]kubernetes.Interface{"the API server": cs, "the daemon": throughDaemon} {
		if code := watchFromCode(t, c, ns, before); code != 410 {
			t.Errorf("a watch from %s (before the relist) at %s: first event's code %d, want an ERROR 410", before, who, code)
		}
	}

	createCM(t, cs, ns, "c12", nil, "k", "0")
	deleteCM(t, cs, ns, "c4")
	converge(t, cs, ns, clients)

	// kube-apiserver restarted under the connected daemon: its watch
	// breaks off and goes on at the new server.
	if err := cp.RestartAPIServer(context.Background()); err != nil {
		t.Fatal(err)
	}
	updateCM(t, cs, ns, "c5", "k", "5")
	deleteCM(t, cs, ns, "c6")
	converge(t, cs, ns, clients)
}

// watchState is a client's view of the namespace's config maps, as
// name -> data.k.
type watchState interface {
	// name says which client it is.
	name() string
	// state is the view now.
	state() map[string]string
	// await waits until the view may have changed; false when deadline
	// came first.
	await(deadline <-chan time.Time) bool
}

// converge waits until every client holds the server's config maps.
func converge(t *testing.T, cs kubernetes.Interface, ns string, clients []watchState) {
	t.Helper()
	list, err := cs.CoreV1().ConfigMaps(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, cm := range list.Items {
		want[cm.Name] = cm.Data["k"]
	}
	deadline := time.After(patience)
	for _, c := range clients {
		for !maps.Equal(c.state(), want) {
			if !c.await(deadline) {
				t.Fatalf("%s holds %v, want the server's %v", c.name(), c.state(), want)
			}
		}
	}
}

// lineState is the view of a process that prints one event a line, which
// parse reads as its type (ADDED, MODIFIED, APPLIED, DELETED), the
// object's name and data.k.
type lineState struct {
	t     *testing.T
	who   string
	p     *proc
	parse func(line string) (typ, name, k string)
	view  map[string]string
}

func newLineState(t *testing.T, who string, p *proc, parse func(string) (string, string, string)) *lineState {
	return &lineState{t: t, who: who, p: p, parse: parse, view: map[string]string{}}
}

func (s *lineState) name() string             { return s.who }
func (s *lineState) state() map[string]string { return s.view }

// await applies the next line; a deletion of an object the view does not
// hold fails the test (a ghost deletion).
func (s *lineState) await(deadline <-chan time.Time) bool {
	s.t.Helper()
	select {
	case l, ok := <-s.p.Lines:
		if !ok {
			s.t.Fatalf("%s ended (exit: %v); stderr:\n%s", s.who, s.p.Err(), s.p.Stderr.String())
		}
		typ, name, k := s.parse(l)
		switch typ {
		case "DELETED":
			if _, ok := s.view[name]; !ok {
				s.t.Errorf("%s: deletion of %s, which it did not hold", s.who, name)
			}
			delete(s.view, name)
		case "ADDED", "MODIFIED", "APPLIED":
			s.view[name] = k
		default:
			s.t.Errorf("%s printed %q", s.who, l)
		}
		return true
	case <-deadline:
		return false
	}
}

// kubectlEvent reads a line of kubectl's jsonpath "{.type} {.name} {.k}".
func kubectlEvent(line string) (typ, name, k string) {
	f := strings.SplitN(line, " ", 3)
	for len(f) < 3 {
		f = append(f, "")
	}
	return f[0], f[1], f[2]
}

// reflectEvent reads a line of `kubectl reflect watch -o json`.
func reflectEvent(t *testing.T) func(string) (string, string, string) {
	return func(line string) (string, string, string) {
		var e event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Errorf("not an NDJSON event: %q: %v", line, err)
		}
		return e.Type, e.Object.Metadata.Name, e.Object.Data["k"]
	}
}

// informerState is the view of a client-go informer.
type informerState struct{ in *informer }

func (s informerState) name() string { return "the informer through the daemon" }

func (s informerState) state() map[string]string {
	s.in.mu.Lock()
	defer s.in.mu.Unlock()
	return maps.Clone(s.in.state)
}

func (s informerState) await(deadline <-chan time.Time) bool {
	select {
	case <-s.in.changed:
		return true
	case <-deadline:
		return false
	}
}

// configMapsMetric is the value of the daemon's metric name for
// configmaps, "" when it has none.
func configMapsMetric(t *testing.T, d *daemon, name string) string {
	t.Helper()
	for line := range strings.SplitSeq(daemonGet(t, d, "/metrics", true), "\n") {
		if strings.HasPrefix(line, name+"{") && strings.Contains(line, `="configmaps`) {
			return line[strings.LastIndex(line, " ")+1:]
		}
	}
	return ""
}

// awaitConfigMapsMetric reads the metric until it is want, for patience at
// most, and returns its last value.
func awaitConfigMapsMetric(t *testing.T, d *daemon, name, want string) string {
	t.Helper()
	deadline := time.After(patience)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		got := configMapsMetric(t, d, name)
		if got == want {
			return got
		}
		select {
		case <-deadline:
			return got
		case <-tick.C:
		}
	}
}

// listRV is the resourceVersion of a list of ns's config maps.
func listRV(t *testing.T, c kubernetes.Interface, ns string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	list, err := c.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return list.ResourceVersion
}

// watchFromCode opens a watch of ns's config maps from rv and returns the
// code of its first event when it is an ERROR (0 otherwise).
func watchFromCode(t *testing.T, c kubernetes.Interface, ns, rv string) int32 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	w, err := c.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
	if err != nil {
		if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
			return 410
		}
		t.Fatal(err)
	}
	defer w.Stop()
	ev, ok := <-w.ResultChan()
	if !ok || ev.Type != watch.Error {
		return 0
	}
	if status, ok := ev.Object.(*metav1.Status); ok {
		return status.Code
	}
	return 0
}
