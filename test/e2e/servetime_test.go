package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
	"github.com/kubectl-reflect/kubectl-reflect/test/testkit"
)

// stopwatchCRD is a custom resource with a date column read from its
// status, beside the Age every kind has.
var stopwatchCRD = testkit.CRD{
	Group: "example.com", Kind: "Stopwatch", Plural: "stopwatches", Singular: "stopwatch",
	Schema: "{type: object, properties: {status: {type: object, x-kubernetes-preserve-unknown-fields: true}}}",
	Columns: []string{
		`{name: Started, type: date, jsonPath: ".status.laps[0].at"}`,
		"{name: Age, type: date, jsonPath: .metadata.creationTimestamp}",
	},
}

// TestServeTimeCellsLikeKubectl: the cells the API server computes from
// the time of the answer (an Event's LAST SEEN, a running Job's DURATION, a
// CronJob's LAST SCHEDULE, a Pod's "RESTARTS (T ago)", a custom resource's
// date column, every AGE) are what it would print now when kubectl reads
// them through the daemon, not what they were when the daemon received
// the objects.
func TestServeTimeCellsLikeKubectl(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	then := time.Now().Add(-30 * time.Second).UTC().Truncate(time.Second)
	createTimedObjects(t, cs, ns, then)
	applyCRD(t, cp.AdminKubeconfig(), stopwatchCRD.Name(), stopwatchCRD.YAML())
	createStopwatch(t, cp, ns, then)
	d := startServe(t, cp, "events,jobs,cronjobs,pods,stopwatches")
	// The daemon received the objects about 30s after their timestamps;
	// what is under test is the clock moving on from there, so wait for it.
	time.Sleep(time.Until(then.Add(35 * time.Second)))
	for _, args := range [][]string{
		{"get", "events", "-n", ns, "--no-headers"},
		{"get", "jobs", "-n", ns, "--no-headers"},
		{"get", "cronjobs", "-n", ns, "--no-headers"},
		{"get", "pods", "-n", ns, "--no-headers"},
		{"get", "stopwatches", "-n", ns, "--no-headers"},
	} {
		t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
			got, gotErr, _ := kubectl(t, d.kubeconfig, args...)
			want, wantErr, _ := kubectl(t, cp.AdminKubeconfig(), args...)
			if gotErr != wantErr || !sameWithin(got, want, time.Second) {
				t.Errorf("through the daemon:\n%s%s\nat the API server:\n%s%s", got, gotErr, want, wantErr)
			}
		})
	}
}

// createTimedObjects makes an Event, a Job, a CronJob and a Pod in ns whose
// time cells count from then.
func createTimedObjects(t *testing.T, cs kubernetes.Interface, ns string, then time.Time) {
	t.Helper()
	ctx := context.Background()
	at := metav1.NewTime(then)
	ts := then.Format(time.RFC3339)
	ev := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "e", Namespace: ns},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "p", Namespace: ns},
		Reason:         "Test", Message: "hello", Type: "Normal", Count: 1,
		FirstTimestamp: at, LastTimestamp: at, Source: corev1.EventSource{Component: "e2e"},
	}
	if _, err := cs.CoreV1().Events(ns).Create(ctx, ev, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	spec := corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}, RestartPolicy: corev1.RestartPolicyNever}
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: ns}, Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: spec}}}
	if _, err := cs.BatchV1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	patchStatus(t, cs.BatchV1().RESTClient(), ns, "jobs/j", `{"status":{"startTime":%q}}`, ts)
	cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "cj", Namespace: ns}, Spec: batchv1.CronJobSpec{
		Schedule: "@yearly", JobTemplate: batchv1.JobTemplateSpec{Spec: job.Spec},
	}}
	if _, err := cs.BatchV1().CronJobs(ns).Create(ctx, cj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	patchStatus(t, cs.BatchV1().RESTClient(), ns, "cronjobs/cj", `{"status":{"lastScheduleTime":%q}}`, ts)
	createPod(t, cs, ns, "p")
	patchStatus(t, cs.CoreV1().RESTClient(), ns, "pods/p", `{"status":{"conditions":[{"type":"Initialized","status":"True"}],"containerStatuses":[{"name":"c","image":"busybox",`+
		`"imageID":"","ready":false,"restartCount":2,"state":{"waiting":{"reason":"CrashLoopBackOff"}},`+
		`"lastState":{"terminated":{"exitCode":1,"startedAt":%q,"finishedAt":%[1]q}}}]}}`, ts)
}

// createStopwatch makes a Stopwatch in ns whose Started counts from then.
func createStopwatch(t *testing.T, cp *controlplane.ControlPlane, ns string, then time.Time) {
	t.Helper()
	sw := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "Stopwatch", "metadata": map[string]any{"name": "s"},
		"status": map[string]any{"laps": []any{map[string]any{"at": then.Format(time.RFC3339)}}},
	}}
	gvr := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "stopwatches"}
	if _, err := dynamic.NewForConfigOrDie(cp.AdminConfig()).Resource(gvr).Namespace(ns).Create(context.Background(), sw, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// patchStatus merge-patches the status of RESOURCE/NAME in ns through rc
// (its group's client) with format and args.
func patchStatus(t *testing.T, rc rest.Interface, ns, resourceName, format string, args ...any) {
	t.Helper()
	resource, name, _ := strings.Cut(resourceName, "/")
	err := rc.Patch(types.MergePatchType).Namespace(ns).Resource(resource).Name(name).SubResource("status").
		Body(fmt.Appendf(nil, format, args...)).Do(context.Background()).Error()
	if err != nil {
		t.Fatalf("patching the status of %s: %v", resourceName, err)
	}
}

// sameWithin says whether a and b are the same words but for durations
// ("34s", "(34s", "2m") that differ by at most tol: two runs a moment apart.
func sameWithin(a, b string, tol time.Duration) bool {
	fa, fb := strings.Fields(a), strings.Fields(b)
	if len(fa) != len(fb) {
		return false
	}
	for i := range fa {
		if fa[i] == fb[i] {
			continue
		}
		da, errA := time.ParseDuration(strings.Trim(fa[i], "()"))
		db, errB := time.ParseDuration(strings.Trim(fb[i], "()"))
		if errA != nil || errB != nil || max(da-db, db-da) > tol {
			return false
		}
	}
	return true
}
