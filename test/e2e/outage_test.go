package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
)

// TestWatchRelistsAfterGone: while the watcher is cut off from the API
// server (by a proxy), objects change and are deleted, etcd is compacted and
// kube-apiserver restarts, so the watch cannot resume (410 Gone). The
// watcher relists and prints exactly what changed: no unchanged object
// again, every deletion it missed. The state rebuilt from its NDJSON equals
// the server's, before and after.
func TestWatchRelistsAfterGone(t *testing.T) {
	cp, cs, ns, px := outageCluster(t)
	p := start(t, cp, "watch", "cm", "-n", ns, "-o", "json", "--server", px.URL())
	state := map[string]event{}
	apply := func(evs ...event) {
		for _, e := range evs {
			if e.Type == "DELETED" {
				if _, ok := state[e.key()]; !ok {
					t.Errorf("phantom deletion of %s", e.key())
				}
				delete(state, e.key())
				continue
			}
			if prev, ok := state[e.key()]; ok && prev.Object.Metadata.ResourceVersion == e.Object.Metadata.ResourceVersion {
				t.Errorf("%s printed again unchanged", e.key())
			}
			state[e.key()] = e
		}
	}
	apply(p.events(10)...)
	assertState(t, cp, ns, state)

	outage(t, cp, cs, ns, px) // c11 created and deleted while away: never printed

	changes := p.events(4)
	apply(changes...)
	got := eventStrings(changes)
	slices.Sort(got)
	want := []string{
		"APPLIED ConfigMap/" + ns + "/c1", "APPLIED ConfigMap/" + ns + "/c10",
		"DELETED ConfigMap/" + ns + "/c2", "DELETED ConfigMap/" + ns + "/c3",
	}
	if !slices.Equal(got, want) {
		t.Errorf("after the outage: %v, want %v", got, want)
	}
	p.Quiet(2 * time.Second)
	assertState(t, cp, ns, state)
	if !strings.Contains(p.Stderr.String(), "relisting") {
		t.Errorf("the watch resumed without a 410 Gone; stderr:\n%s", p.Stderr.String())
	}

	// And the new watch goes on.
	createCM(t, cs, ns, "c12", nil)
	apply(p.nextEvent())
	assertState(t, cp, ns, state)
}

// outageCluster starts a control plane of the test's own (restarting the
// shared one would disturb the tests running beside it), with the config
// maps c0 to c9 (k=0) in a namespace, and a proxy to its API server.
func outageCluster(t *testing.T) (*controlplane.ControlPlane, kubernetes.Interface, string, *proxy) {
	t.Helper()
	cp := controlplane.StartForTest(t, controlplane.Options{NoControllerManager: true})
	cs := admin(t, cp)
	ns := namespace(t, cs)
	for i := range 10 {
		createCM(t, cs, ns, fmt.Sprintf("c%d", i), nil, "k", "0")
	}
	return cp, cs, ns, newProxy(t, cp.Server())
}

// outage cuts px off while, in ns, c1 is updated (k=1), c2 and c3 are
// deleted, c10 is created and c11 created and deleted; then etcd is
// compacted and kube-apiserver restarted, so that a watch from before
// cannot resume (410 Gone), and px lets clients through again.
func outage(t *testing.T, cp *controlplane.ControlPlane, cs kubernetes.Interface, ns string, px *proxy) {
	t.Helper()
	ctx := context.Background()
	px.disconnect(true)
	updateCM(t, cs, ns, "c1", "k", "1")
	deleteCM(t, cs, ns, "c2")
	deleteCM(t, cs, ns, "c3")
	createCM(t, cs, ns, "c10", nil, "k", "0")
	createCM(t, cs, ns, "c11", nil, "k", "0")
	deleteCM(t, cs, ns, "c11")
	if err := cp.CompactEtcd(ctx); err != nil {
		t.Fatal(err)
	}
	if err := cp.RestartAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	px.reconnect()
}

// assertState compares the state rebuilt from the printed events with the
// server's.
func assertState(t *testing.T, cp *controlplane.ControlPlane, ns string, state map[string]event) {
	t.Helper()
	list, err := admin(t, cp).CoreV1().ConfigMaps(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	server := map[string]string{}
	for _, cm := range list.Items {
		server["ConfigMap/"+ns+"/"+cm.Name] = cm.ResourceVersion
	}
	printed := map[string]string{}
	for k, e := range state {
		printed[k] = e.Object.Metadata.ResourceVersion
	}
	if fmt.Sprint(server) != fmt.Sprint(printed) {
		t.Errorf("state from the stream:\n%v\nserver:\n%v", printed, server)
	}
}
