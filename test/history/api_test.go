package history

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
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

// TestWatchFromHistory: a client that watched the daemon before it
// restarted resumes from its resourceVersion, which neither the restarted
// daemon's stores (they start where the record ends) nor the API server
// (etcd compacted) hold any more: the daemon replays the changes since
// from its history, then goes on live, with no relist and no 410.
func TestWatchFromHistory(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	pts := e.cs.CoreV1().PodTemplates(e.ns)
	create := func(name string) *corev1.PodTemplate {
		pt := &corev1.PodTemplate{ObjectMeta: metav1.ObjectMeta{Name: name}, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "main", Image: "busybox"}}}}}
		out, err := pts.Create(ctx, pt, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	p := e.serve("podtemplates", "--record")
	a := create("a")
	a.Labels = map[string]string{"edited": "yes"}
	a2, err := pts.Update(ctx, a, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b := create("b")
	e.recordedAs("podtemplate/b", b.ResourceVersion)
	stopServe(t, p)

	p = e.serve("podtemplates", "--record")
	c := create("c")
	e.recordedAs("podtemplate/c", c.ResourceVersion) // the restarted daemon watches
	if err := e.cp.CompactEtcd(ctx); err != nil {
		t.Fatal(err)
	}
	if w, err := pts.Watch(ctx, metav1.ListOptions{ResourceVersion: a.ResourceVersion}); err == nil {
		ev := <-w.ResultChan()
		w.Stop()
		if ev.Type != watch.Error {
			t.Fatalf("the API server answered a watch from %s with %s: the test needs it to have forgotten", a.ResourceVersion, ev.Type)
		}
	}

	cfg, err := clientcmd.BuildConfigFromFlags("", daemonKubeconfig(p))
	if err != nil {
		t.Fatal(err)
	}
	w, err := kubernetes.NewForConfigOrDie(cfg).CoreV1().PodTemplates(e.ns).Watch(ctx, metav1.ListOptions{ResourceVersion: a.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if err := pts.Delete(ctx, "b", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	want := []string{"MODIFIED a@" + a2.ResourceVersion, "ADDED b@" + b.ResourceVersion, "ADDED c@" + c.ResourceVersion, "DELETED b"}
	for i := range want {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("the daemon's watch ended after %d events", i)
			}
			got := string(ev.Type)
			if m, err := meta.Accessor(ev.Object); err == nil {
				got += " " + m.GetName() + "@" + m.GetResourceVersion()
			}
			if !strings.HasPrefix(got, want[i]) {
				t.Errorf("event %d from the daemon: %s, want %s", i, got, want[i])
			}
		case <-time.After(patience):
			t.Fatalf("no event %d (%s) from the daemon", i, want[i])
		}
	}
}
