package controller

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// patience bounds a wait for something that happens at once: a guard
// against hangs, never a synchronisation.
const patience = 30 * time.Second

func TestRecorderWritesEventsV1(t *testing.T) {
	client := fake.NewClientset()
	w, err := client.EventsV1().Events("ns1").Watch(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	rec, stop := NewRecorder(t.Context(), client, "test")
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns1", Name: "cm1", UID: "u1"}}
	rec.Eventf(cm, nil, corev1.EventTypeWarning, "InvalidSpec", "Reconcile", "bad key %q", "a/b")
	var ev *eventsv1.Event
	select {
	case e := <-w.ResultChan():
		ev = e.Object.(*eventsv1.Event)
	case <-time.After(patience):
		t.Fatal("no event written")
	}
	stop()
	if ev.ReportingController != "kubectl-reflect/test" || ev.Reason != "InvalidSpec" || ev.Action != "Reconcile" ||
		ev.Type != corev1.EventTypeWarning || ev.Note != `bad key "a/b"` ||
		ev.Regarding.Kind != "ConfigMap" || ev.Regarding.Name != "cm1" || ev.Regarding.Namespace != "ns1" {
		t.Fatalf("event %+v, want a Warning InvalidSpec about ConfigMap ns1/cm1 from kubectl-reflect/test", ev)
	}
}
