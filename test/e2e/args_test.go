package e2e

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/dynamic"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
	"github.com/kubectl-reflect/kubectl-reflect/test/testkit"
)

// gizmoCRD declares the category "toys", which kubectl expands to its
// kinds like "all".
const gizmoCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gizmos.args.example.com
spec:
  group: args.example.com
  names: {kind: Gizmo, plural: gizmos, singular: gizmo, categories: [toys]}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`

// TestArgsMatchKubectl: the resource arguments kubectl get accepts are
// read the same (categories, KIND/NAME, KIND,KIND NAME, several names) and
// those it refuses are refused with its words and exit code. stdout,
// stderr and the exit code are compared with kubectl's; our binary's name
// in cli-runtime's messages and "kubectl reflect" in ours are read as
// "kubectl".
func TestArgsMatchKubectl(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	kc := cp.AdminKubeconfig()
	createArgsObjects(t, cp, ns)
	// Fresh discovery caches: a stale one would not know the CRD's category.
	kubectlCache, ourCache := "--cache-dir="+t.TempDir(), "--cache-dir="+t.TempDir()

	tests := [][]string{
		{"all"},
		{"all", "-o", "name"},
		{"toys"},
		{"toys,cm"},
		{"cm,toys", "g1"},
		{"toys", "g1"},
		{"cm/a", "secret/b"},
		{"cm/a", "cm/shared"},
		{"cm/a", "secret/b", "cm/shared"},
		{"cm/a", "secret/nope", "configmap/shared"},
		{"cm/a", "cm/a"},
		{"cm,secret", "shared"},
		{"cm,secret", "shared", "-o", "name"},
		{"cm,secret", "shared", "-o", "yaml"},
		{"cm", "a", "nope", "shared"},
		{"cm", "a", "nope", "shared", "-o", "name"},
		{"cm", "nope", "--ignore-not-found"},
		{"cm", "nope", "-o", "yaml", "--ignore-not-found"},
		{"cm/nope", "-o", "yaml"},
		{"cm", "nope", "-o", "yaml"},
		{"cm", "nope1", "nope2", "-o", "yaml"},
		{"cm,secret"},
		{"cm,secret", "-l", "app=web"}, // no Secret: kubectl still names the kind
		{"secret,cm", "shared"},        // the one found: its kind is not named
		{"cm/a", "secret/nope"},
		{"cm", ""},
		{"cm", "a", "", "nope"},
		{"ns", ns, "-A"},
		// refused
		{},
		{"cm", "cm/a"},
		{"cm/a", "b"},
		{"cm/a", "secret/b", "c"},
		{"cm/"},
		{"/a"},
		{"cm/a/b"},
		{"cm,secret/a"},
		{"cm,secret", "a/b"},
		{"cm,cm/a"},
		{"all/a"},
		{"all", "a"},
		{"cm", "a", "-l", "app=web"},
		{"cm/a", "--field-selector", "metadata.name=a"},
		{"cm,secret", "a", "-l", "app=web"},
		{"cm", "a", "-A"},
		{"cm/a", "-A"},
		{"nosuchkind"},
		{"cm,nosuchkind", "a"},
		{"configmaps.apps"},
		{"cm,,secret"},
	}
	for _, args := range tests {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			if !testkit.HasFlag(args, "-A") {
				args = append(args, "-n", ns)
			}
			want, got := kubectlAndOurs(t, append(append([]string{"get", kubectlCache}, args...), "--kubeconfig", kc),
				append([]string{"get", ourCache, "--kubeconfig", kc}, args...))
			if normalizeAge(got.Stdout) != normalizeAge(want.Stdout) {
				t.Errorf("stdout differs from kubectl's\n--- kubectl reflect:\n%s\n--- kubectl:\n%s", got.Stdout, want.Stdout)
			}
			if gotErr := asKubectl(got.Stderr); gotErr != want.Stderr {
				t.Errorf("stderr differs from kubectl's\n--- kubectl reflect:\n%s\n--- kubectl:\n%s", gotErr, want.Stderr)
			}
			if got.Code != want.Code {
				t.Errorf("exit %d, kubectl exits %d", got.Code, want.Code)
			}
		})
	}
}

// asKubectl reads our names in messages as kubectl's.
func asKubectl(stderr string) string {
	return strings.NewReplacer("kubectl reflect ", "kubectl ", filepath.Base(binary)+" ", "kubectl ").Replace(stderr)
}

// createArgsObjects makes what TestArgsMatchKubectl reads: ConfigMaps a
// (labelled app=web) and shared, Secret b, a Service and a CronJob (in
// "all", and still: no controller makes anything of them), and Gizmo g1 of
// a CRD in category "toys".
func createArgsObjects(t *testing.T, cp *controlplane.ControlPlane, ns string) {
	cs, cfg, kubeconfig := admin(t, cp), cp.AdminConfig(), cp.AdminKubeconfig()
	t.Helper()
	ctx := context.Background()
	createCM(t, cs, ns, "a", map[string]string{"app": "web"}, "k", "v")
	createCM(t, cs, ns, "shared", nil)
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: ns}, StringData: map[string]string{"k": "v"}}
	if _, err := cs.CoreV1().Secrets(ns).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"},
			Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}}},
	}
	if _, err := cs.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cron := &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: "yearly", Namespace: ns},
		Spec: batchv1.CronJobSpec{Schedule: "0 0 1 1 *", JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "c", Image: "busybox"}},
			}},
		}}},
	}
	if _, err := cs.BatchV1().CronJobs(ns).Create(ctx, cron, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	applyCRD(t, kubeconfig, "gizmos.args.example.com", gizmoCRD)
	gizmo := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "args.example.com/v1", "kind": "Gizmo", "metadata": map[string]any{"name": "g1"},
	}}
	gvr := schema.GroupVersionResource{Group: "args.example.com", Version: "v1", Resource: "gizmos"}
	if _, err := dynamic.NewForConfigOrDie(cfg).Resource(gvr).Namespace(ns).Create(ctx, gizmo, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// applyCRD applies a CRD and waits until it is served.
func applyCRD(t *testing.T, kubeconfig, name, manifest string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "crd.yaml")
	if err := os.WriteFile(file, []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := kubectl(t, kubeconfig, "apply", "-f", file); code != 0 {
		t.Fatalf("applying the CRD: %s", stderr)
	}
	if _, stderr, code := kubectl(t, kubeconfig, "wait", "--for=condition=Established", "crd/"+name, "--timeout=60s"); code != 0 {
		t.Fatalf("waiting for the CRD: %s", stderr)
	}
}

// TestWatchNoKind: watch without a kind answers as get does, naming its
// own verb and help.
func TestWatchNoKind(t *testing.T) {
	cp := cluster.Get(t)
	_, stderr, code := runOnce(t, nil, "watch", "--kubeconfig", cp.AdminKubeconfig())
	want := `You must specify the type of resource to watch. Use "kubectl api-resources" for a complete list of supported resources.

error: Required resource not specified.
Use "kubectl explain <resource>" for a detailed description of that resource (e.g. kubectl explain pods).
See 'kubectl reflect watch -h' for help and examples
`
	if stderr != want || code != 1 {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1, stderr:\n%s", code, stderr, want)
	}
}

// TestWatchNames: `watch cm a b zz` prints a and b, never the other
// ConfigMaps, and zz once it is created; KIND/NAME arguments of two kinds
// stream those two objects.
func TestWatchNames(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	for _, name := range []string{"a", "b", "c"} {
		createCM(t, cs, ns, name, nil)
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: ns}}
	if _, err := cs.CoreV1().Secrets(ns).Create(context.Background(), secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	t.Run("names of one kind", func(t *testing.T) {
		p := start(t, cp, "watch", "cm", "a", "b", "zz", "-n", ns, "-o", "json")
		initial := eventStrings(p.events(2))
		slices.Sort(initial)
		if want := []string{"APPLIED ConfigMap/" + ns + "/a", "APPLIED ConfigMap/" + ns + "/b"}; !slices.Equal(initial, want) {
			t.Fatalf("initial events = %v, want %v", initial, want)
		}
		updateCM(t, cs, ns, "c", "k", "1") // not watched: a's change comes first
		updateCM(t, cs, ns, "a", "k", "1")
		if got, want := p.nextEvent().String(), "APPLIED ConfigMap/"+ns+"/a"; got != want {
			t.Errorf("after changing c, then a: %s, want %s", got, want)
		}
		createCM(t, cs, ns, "zz", nil)
		if got, want := p.nextEvent().String(), "APPLIED ConfigMap/"+ns+"/zz"; got != want {
			t.Errorf("after creating zz: %s, want %s", got, want)
		}
	})
	t.Run("KIND/NAME of two kinds", func(t *testing.T) {
		p := start(t, cp, "watch", "cm/b", "secret/s", "-n", ns, "-o", "json")
		initial := eventStrings(p.events(2))
		slices.Sort(initial)
		if want := []string{"APPLIED ConfigMap/" + ns + "/b", "APPLIED Secret/" + ns + "/s"}; !slices.Equal(initial, want) {
			t.Fatalf("initial events = %v, want %v", initial, want)
		}
		updateCM(t, cs, ns, "a", "k", "2")
		updateCM(t, cs, ns, "b", "k", "2")
		if got, want := p.nextEvent().String(), "APPLIED ConfigMap/"+ns+"/b"; got != want {
			t.Errorf("after changing a, then b: %s, want %s", got, want)
		}
	})
}

// TestWatchAll: `watch all` streams the kinds of kubectl's category "all".
func TestWatchAll(t *testing.T) {
	cp := cluster.Get(t)
	ns := namespace(t, admin(t, cp))
	createArgsObjects(t, cp, ns)
	p := start(t, cp, "watch", "all", "-n", ns, "-o", "json")
	initial := eventStrings(p.events(2))
	slices.Sort(initial)
	if want := []string{"APPLIED CronJob/" + ns + "/yearly", "APPLIED Service/" + ns + "/web"}; !slices.Equal(initial, want) {
		t.Fatalf("initial events = %v, want %v", initial, want)
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: ns},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}},
	}
	if _, err := admin(t, cp).CoreV1().Services(ns).Create(context.Background(), svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, want := p.nextEvent().String(), "APPLIED Service/"+ns+"/api"; got != want {
		t.Errorf("after creating a Service: %s, want %s", got, want)
	}
}
