package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// TestGetSubresourceMatchesKubectl: get --subresource reads the status or
// scale of named objects with a GET each and prints what kubectl get
// prints, its refusals included. The objects are ones whose subresources
// do not change while both read them: a Deployment of no replicas (its
// scale) and a pod no node runs (its status).
func TestGetSubresourceMatchesKubectl(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	kc := kubeconfigIn(t, cp, ns)
	createIdleDeployment(t, cs, ns, "web")
	createPod(t, cs, ns, "idle")
	cases := [][]string{
		{"get", "deploy", "web", "--subresource", "scale"},
		{"get", "deploy", "web", "web", "--subresource", "scale", "-o", "name"},
		{"get", "deploy/web", "--subresource", "scale", "-o", "yaml"},
		{"get", "deploy", "web", "nope", "--subresource", "scale"},
		{"get", "deploy", "nope", "--subresource", "scale", "--ignore-not-found"},
		{"get", "pod", "idle", "--subresource", "status", "-o", "jsonpath={.status.phase}"},
		{"get", "pod", "idle", "--subresource", "status", "-o", "name"},
		{"get", "cm", "kube-root-ca.crt", "--subresource", "status"}, // none: the server's 404
		{"get", "deploy", "--subresource", "scale"},                  // no name
	}
	matchKubectl(t, kc, cases, strings.NewReplacer())
}

// createIdleDeployment creates a Deployment of no replicas.
func createIdleDeployment(t *testing.T, cs kubernetes.Interface, ns, name string) {
	t.Helper()
	labels := map[string]string{"app": name}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: new(int32),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
			},
		},
	}
	if _, err := cs.AppsV1().Deployments(ns).Create(context.Background(), d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// createPod creates a pod that never runs (no node here runs it), once the
// namespace's default ServiceAccount, which admission requires, exists.
func createPod(t *testing.T, cs kubernetes.Interface, ns, name string) {
	t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
	}
	err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, patience, true, func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
		if apierrors.IsForbidden(err) && strings.Contains(err.Error(), "service account") {
			return false, nil // the ServiceAccount controller has not made it yet
		}
		return err == nil, err
	})
	if err != nil {
		t.Fatalf("creating pod %s/%s: %v", ns, name, err)
	}
}
