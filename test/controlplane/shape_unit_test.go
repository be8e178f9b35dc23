package controlplane

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestKustomizeResourcesFollowsDirectoriesInOrder(t *testing.T) {
	root := t.TempDir()
	write := func(path, body string) {
		t.Helper()
		path = filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	const k = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n"
	write("stage/fast/kustomization.yaml", k+"- ../node/fast\n- ../pod/fast\n")
	write("stage/node/fast/kustomization.yaml", k+"- node-initialize.yaml\n")
	write("stage/node/fast/node-initialize.yaml", "kind: Stage # node\n")
	write("stage/pod/fast/kustomization.yaml", k+"- pod-ready.yaml\n- pod-delete.yaml\n")
	write("stage/pod/fast/pod-ready.yaml", "kind: Stage # ready\n")
	write("stage/pod/fast/pod-delete.yaml", "kind: Stage # delete\n")

	docs, err := kustomizeResources(filepath.Join(root, "stage/fast"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		got = append(got, strings.TrimSpace(string(d)))
	}
	want := []string{"kind: Stage # node", "kind: Stage # ready", "kind: Stage # delete"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}

	// A kustomization that patches is not half read.
	write("stage/patched/kustomization.yaml", k+"- ../node/fast\npatches:\n- path: p.yaml\n")
	if _, err := kustomizeResources(filepath.Join(root, "stage/patched")); err == nil {
		t.Errorf("a kustomization with patches was accepted")
	}
}

func TestFakeNodeFollowsKwokctlTemplate(t *testing.T) {
	n := fakeNode("kwok-node-300", 300)
	if n.Annotations[KwokNodeAnnotation] != "fake" || n.Labels["kubernetes.io/hostname"] != "kwok-node-300" || n.Labels["type"] != "kwok" {
		t.Errorf("metadata %+v", n.ObjectMeta)
	}
	if n.Spec.PodCIDR != "10.245.44.0/24" || !slices.Equal(n.Spec.PodCIDRs, []string{"10.245.44.0/24"}) {
		t.Errorf("pod CIDR %q %q", n.Spec.PodCIDR, n.Spec.PodCIDRs)
	}
	if got := n.Status.Addresses[0].Address; got != "192.0.3.45" {
		t.Errorf("internal IP %s", got)
	}
	if pods := n.Status.Allocatable.Pods(); pods.Value() != 110 {
		t.Errorf("allocatable pods %v", pods)
	}
	if len(n.Spec.Taints) != 0 {
		t.Errorf("taints %v", n.Spec.Taints)
	}
}

func TestNextImage(t *testing.T) {
	for in, want := range map[string]string{"app:v1": "app:v2", "app:v9": "app:v10"} {
		if got, err := nextImage(in); got != want || err != nil {
			t.Errorf("nextImage(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"app", "app:latest", "app:1"} {
		if got, err := nextImage(in); err == nil {
			t.Errorf("nextImage(%q) = %q, want an error", in, got)
		}
	}
}

func TestRolledOut(t *testing.T) {
	three := int32(3)
	base := appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Generation: 2},
		Spec:       appsv1.DeploymentSpec{Replicas: &three},
		Status:     appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 3, UpdatedReplicas: 3, AvailableReplicas: 3},
	}
	for name, tc := range map[string]struct {
		change func(*appsv1.Deployment)
		want   bool
	}{
		"complete":            {func(*appsv1.Deployment) {}, true},
		"spec not yet seen":   {func(d *appsv1.Deployment) { d.Status.ObservedGeneration = 1 }, false},
		"old replicas left":   {func(d *appsv1.Deployment) { d.Status.Replicas = 4 }, false},
		"not all updated":     {func(d *appsv1.Deployment) { d.Status.UpdatedReplicas = 2 }, false},
		"not all available":   {func(d *appsv1.Deployment) { d.Status.AvailableReplicas = 2 }, false},
		"replicas defaulting": {func(d *appsv1.Deployment) { d.Spec.Replicas = nil }, false},
	} {
		d := base.DeepCopy()
		tc.change(d)
		if got := rolledOut(d); got != tc.want {
			t.Errorf("%s: rolledOut = %v, want %v", name, got, tc.want)
		}
	}
}

func TestClusterOptionsDefaults(t *testing.T) {
	if got := (Options{}).withDefaults().Controllers; !slices.Equal(got, []string{"garbagecollector", "namespace"}) {
		t.Errorf("plain control plane: controllers %v", got)
	}
	o := Options{Scheduler: true, Kwok: &KwokOptions{Nodes: 3, NodeLeaseDuration: 1500 * time.Millisecond}}.withDefaults()
	if !slices.Contains(o.Controllers, "deployment-controller") || !slices.Contains(o.Controllers, "node-lifecycle-controller") {
		t.Errorf("cluster: controllers %v", o.Controllers)
	}
	if o.Kwok.leaseSeconds() != 2 {
		t.Errorf("lease of 1.5s: %d seconds", o.Kwok.leaseSeconds())
	}
	if d := (Options{Kwok: &KwokOptions{}}).withDefaults().Kwok.NodeLeaseDuration; d != 40*time.Second {
		t.Errorf("default lease duration %s", d)
	}
}

// TestKwokToolsFollowsTools: kwok is built with the Kubernetes libraries of
// the control plane (see kwoktools/go.mod), so both modules replace the same
// k8s.io modules with the same versions.
func TestKwokToolsFollowsTools(t *testing.T) {
	tools, err := resolveToolsDir("")
	if err != nil {
		t.Fatal(err)
	}
	replaces := func(module string) map[string]string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(filepath.Dir(tools), module, "go.mod"))
		if err != nil {
			t.Fatal(err)
		}
		_, block, _ := strings.Cut(string(b), "\nreplace (\n")
		block, _, _ = strings.Cut(block, "\n)")
		m := map[string]string{}
		for _, line := range strings.Split(block, "\n") {
			if from, to, ok := strings.Cut(strings.TrimSpace(line), " => "); ok {
				m[from] = to
			}
		}
		return m
	}
	want, got := replaces("tools"), replaces(kwokSet().module)
	if len(want) == 0 {
		t.Fatal("tools/go.mod has no replace block")
	}
	for from, to := range want {
		if got[from] != to {
			t.Errorf("kwoktools/go.mod replaces %s with %q, tools/go.mod with %q", from, got[from], to)
		}
	}
}
