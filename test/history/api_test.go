package history

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// TestExactListFromHistory: a client lists the daemon at a resourceVersion
// from before the daemon started, before an object's change that the API
// server's events cannot undo: the daemon answers it from its history, as
// the API server answers it from etcd.
func TestExactListFromHistory(t *testing.T) {
	e := newEnv(t)
	p := e.serve("configmaps", "--record")
	first := e.createCM("kept", nil, "v", "1")
	changed := e.updateCM("kept", "editor", "v", "2")
	e.recorded("kept", changed.ResourceVersion)
	stopServe(t, p)
	p = e.serve("configmaps", "--record")
	_, after, _ := strings.Cut(p.Stderr.String(), "kubeconfig: ")
	path, _, _ := strings.Cut(after, "\n")
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	daemon := kubernetes.NewForConfigOrDie(cfg)
	ctx := context.Background()
	exact := metav1.ListOptions{ResourceVersion: first.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchExact}
	got, err := daemon.CoreV1().ConfigMaps(e.ns).List(ctx, exact)
	if err != nil {
		t.Fatalf("exact list at %s from the daemon: %v", first.ResourceVersion, err)
	}
	want, err := e.cs.CoreV1().ConfigMaps(e.ns).List(ctx, exact)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Items) != 1 || len(want.Items) != 1 || got.Items[0].Data["v"] != "1" || got.Items[0].ResourceVersion != want.Items[0].ResourceVersion || got.ResourceVersion != first.ResourceVersion {
		t.Errorf("exact list at %s: daemon %+v (rv %s), API server %+v", first.ResourceVersion, got.Items, got.ResourceVersion, want.Items)
	}
}
