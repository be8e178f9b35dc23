package history

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	typedappsv1 "k8s.io/client-go/kubernetes/typed/apps/v1"
)

// controller is the field manager the test's status updates claim: this
// package's control plane runs no kube-controller-manager, so the test
// plays its part.
const controller = "kube-controller-manager"

// TestHistoryManagerOfAController: a Deployment made by kubectl apply and
// given a status before the recorder starts is INITIAL, claimed by no
// manager; after it, a scale is the scaler's and each status update the
// controller's, whether it re-stamped the controller's managedFields entry
// (a later second) or left it byte for byte as it was (the same second:
// the entry's time has a second's precision); an edit of the image, a
// field the applier owned, is the editor's.
func TestHistoryManagerOfAController(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	deploys := e.cs.AppsV1().Deployments(e.ns)
	e.applyDeployment("web")
	initial := e.updateStatus(deploys, "web", 0)

	e.serve("deployments", "--record")
	e.recordedAs("deployments/web", initial.ResourceVersion)

	want := map[string]string{initial.ResourceVersion: "INITIAL <none>"}
	scale := &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: e.ns}, Spec: autoscalingv1.ScaleSpec{Replicas: 3}}
	scaled, err := deploys.UpdateScale(ctx, "web", scale, metav1.UpdateOptions{FieldManager: "scaler"})
	if err != nil {
		t.Fatal(err)
	}
	want[scaled.ResourceVersion] = "MODIFIED scaler"
	sameSecond, laterSecond := 0, 0
	var last *appsv1.Deployment
	for step := 1; sameSecond < 3 || laterSecond < 1; step++ {
		if sameSecond >= 3 {
			time.Sleep(200 * time.Millisecond) // for the API server's clock to reach the next second
		}
		if step > 100 {
			t.Fatalf("%d status updates: %d in the second of the one before, %d in a later second", step, sameSecond, laterSecond)
		}
		d := e.updateStatus(deploys, "web", step)
		want[d.ResourceVersion] = "MODIFIED " + controller
		if last != nil {
			if entryTime(last, controller, "status") == entryTime(d, controller, "status") {
				sameSecond++
			} else {
				laterSecond++
			}
		}
		last = d
	}
	edited, err := deploys.Patch(ctx, "web", types.StrategicMergePatchType,
		[]byte(`{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.27"}]}}}}`), metav1.PatchOptions{FieldManager: "kubectl-edit"})
	if err != nil {
		t.Fatal(err)
	}
	want[edited.ResourceVersion] = "MODIFIED kubectl-edit"
	after := e.updateStatus(deploys, "web", 1000)
	want[after.ResourceVersion] = "MODIFIED " + controller

	out := e.recordedAs("deployments/web", after.ResourceVersion)
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		if f := strings.Fields(line); len(f) == 4 {
			got[f[0]] = f[2] + " " + f[3]
		}
	}
	for rv, w := range want {
		if got[rv] != w {
			t.Errorf("revision %s: %q, want %q", rv, got[rv], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d revisions, want %d", len(got), len(want))
	}
	if t.Failed() {
		t.Logf("%d status updates in the second of the one before, %d in a later second; history:\n%s", sameSecond, laterSecond, out)
	}
	diff := e.mustRun("history", "deploy/web", "-n", e.ns, "--diff")
	if !strings.HasPrefix(diff, "INITIAL deployments.apps/web (resourceVersion "+initial.ResourceVersion+") at ") || !strings.Contains(diff, "\napiVersion: apps/v1\n") {
		t.Errorf("history --diff does not start with the INITIAL revision in full:\n%.600s", diff)
	}
}

// applyDeployment makes Deployment name with kubectl apply (client-side:
// the manager kubectl-client-side-apply), one replica.
func (e *env) applyDeployment(name string) {
	e.t.Helper()
	e.applyReplicas(name, 1)
}

// applyReplicas applies Deployment name (the image nginx) with replicas.
func (e *env) applyReplicas(name string, replicas int) {
	e.t.Helper()
	manifest := fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[1]s
spec:
  replicas: %[2]d
  selector:
    matchLabels: {app: %[1]s}
  template:
    metadata:
      labels: {app: %[1]s}
    spec:
      containers:
      - name: web
        image: nginx
`, name, replicas)
	path := filepath.Join(e.t.TempDir(), name+".yaml")
	if err := os.WriteFile(path, []byte(manifest), 0o600); err != nil {
		e.t.Fatal(err)
	}
	e.kubectl("apply", "-f", path, "-n", e.ns)
}

// updateStatus writes Deployment name's status as the controller would,
// each step a different one (its Progressing condition's message).
func (e *env) updateStatus(deploys typedappsv1.DeploymentInterface, name string, step int) *appsv1.Deployment {
	e.t.Helper()
	ctx := context.Background()
	d, err := deploys.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	replicas := *d.Spec.Replicas
	now := metav1.Now()
	d.Status = appsv1.DeploymentStatus{
		ObservedGeneration: d.Generation, Replicas: replicas, UpdatedReplicas: replicas,
		ReadyReplicas: replicas, AvailableReplicas: replicas, // the same fields each step: the entry changes only by its time
		Conditions: []appsv1.DeploymentCondition{{
			Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "ReplicaSetUpdated",
			Message: fmt.Sprintf("step %d", step), LastUpdateTime: now, LastTransitionTime: now,
		}},
	}
	out, err := deploys.UpdateStatus(ctx, d, metav1.UpdateOptions{FieldManager: controller})
	if err != nil {
		e.t.Fatal(err)
	}
	return out
}

// entryTime is the time of d's managedFields entry of manager and
// subresource, as the API server wrote it (a second's precision).
func entryTime(d *appsv1.Deployment, manager, subresource string) string {
	for _, m := range d.ManagedFields {
		if m.Manager == manager && m.Subresource == subresource && m.Time != nil {
			return m.Time.UTC().String()
		}
	}
	return ""
}
