package controllers

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/builtin/configmapgenerator"
	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
	"github.com/kubectl-reflect/kubectl-reflect/test/testkit"
)

// runGenerator starts `run-controller configmap-generator -n ns` with
// extra flags and waits until it says it is ready.
func runGenerator(t *testing.T, cp *controlplane.ControlPlane, ns string, extra ...string) *proc {
	t.Helper()
	installCRD(t, cp)
	p := start(t, cp, append([]string{"run-controller", "configmap-generator", "-n", ns}, extra...)...)
	if !testkit.HasFlag(extra, "-q") {
		p.WaitErrLine(`^configmap-generator: ready$`)
	}
	return p
}

// reconciled is the pattern of the log line of a reconcile of ns/name
// whose result starts with result ("ok", "terminal error", ...).
func reconciled(ns, name, result string) string {
	return fmt.Sprintf(`^\S+ configmap-generator %s/%s \S+ \S+ %s`, regexp.QuoteMeta(ns), regexp.QuoteMeta(name), regexp.QuoteMeta(result))
}

// applyGenerator applies a ConfigMapGenerator with kubectl (client-side
// apply, as a user would); spec is YAML indented for under "spec:".
func applyGenerator(t *testing.T, cp *controlplane.ControlPlane, ns, name, spec string) {
	t.Helper()
	doc := fmt.Sprintf("apiVersion: kubectl-reflect.io/v1alpha1\nkind: ConfigMapGenerator\nmetadata:\n  name: %s\n  namespace: %s\nspec:\n%s", name, ns, spec)
	if out, errOut, code := kubectlStdin(t, cp, doc, "apply", "-f", "-"); code != 0 {
		t.Fatalf("kubectl apply of generator %s: exit %d\n%s%s", name, code, out, errOut)
	}
}

// generator reads a generator through the API.
func generator(t *testing.T, cp *controlplane.ControlPlane, ns, name string) *configmapgenerator.ConfigMapGenerator {
	t.Helper()
	u, err := adminDynamic(t, cp).Resource(configmapgenerator.GVR).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("getting generator %s: %v", name, err)
	}
	return decodeGenerator(t, u)
}

func decodeGenerator(t *testing.T, u *unstructured.Unstructured) *configmapgenerator.ConfigMapGenerator {
	t.Helper()
	var g configmapgenerator.ConfigMapGenerator
	if err := runtimeConvert(u, &g); err != nil {
		t.Fatal(err)
	}
	return &g
}

// ready is the generator's Ready condition, or nil.
func ready(g *configmapgenerator.ConfigMapGenerator) *metav1.Condition {
	for i, c := range g.Status.Conditions {
		if c.Type == configmapgenerator.ConditionReady {
			return &g.Status.Conditions[i]
		}
	}
	return nil
}

// waitReady waits until the generator's status is about its current
// generation with Ready of status and reason, and returns it.
func waitReady(t *testing.T, cp *controlplane.ControlPlane, ns, name string, status metav1.ConditionStatus, reason string) *configmapgenerator.ConfigMapGenerator {
	t.Helper()
	var g *configmapgenerator.ConfigMapGenerator
	eventually(t, fmt.Sprintf("generator %s Ready=%s %s", name, status, reason), func(ctx context.Context) (bool, error) {
		g = generator(t, cp, ns, name)
		c := ready(g)
		return g.Status.ObservedGeneration == g.Generation && c != nil && c.Status == status && c.Reason == reason, nil
	})
	return g
}

// waitConfigMap waits until the ConfigMap exists and cond holds of it.
func waitConfigMap(t *testing.T, cs kubernetes.Interface, ns, name, what string, cond func(*corev1.ConfigMap) bool) *corev1.ConfigMap {
	t.Helper()
	var cm *corev1.ConfigMap
	eventually(t, fmt.Sprintf("ConfigMap %s %s", name, what), func(ctx context.Context) (bool, error) {
		var err error
		cm, err = cs.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return cond(cm), nil
	})
	return cm
}

// waitGone waits until the ConfigMap does not exist.
func waitGone(t *testing.T, cs kubernetes.Interface, ns, name string) {
	t.Helper()
	eventually(t, "ConfigMap "+name+" gone", func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
}

// dataIs says whether cm's data is exactly kv (key, value, ...).
func dataIs(cm *corev1.ConfigMap, kv ...string) bool {
	if len(cm.Data) != len(kv)/2 {
		return false
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if v, ok := cm.Data[kv[i]]; !ok || v != kv[i+1] {
			return false
		}
	}
	return true
}

// warningEvent waits for an events.k8s.io Warning about the generator with
// reason, and returns its note.
func warningEvent(t *testing.T, cs kubernetes.Interface, ns, name, reason string) string {
	t.Helper()
	var note string
	eventually(t, "a Warning event "+reason+" about "+name, func(ctx context.Context) (bool, error) {
		evs, err := cs.EventsV1().Events(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, e := range evs.Items {
			if e.Regarding.Kind == configmapgenerator.Kind && e.Regarding.Name == name && e.Reason == reason && e.Type == corev1.EventTypeWarning {
				note = e.Note
				return true, nil
			}
		}
		return false, nil
	})
	return note
}

// countLines counts the lines of s matching re.
func countLines(s, re string) int {
	r := regexp.MustCompile(re)
	n := 0
	for l := range strings.Lines(s) {
		if r.MatchString(strings.TrimSuffix(l, "\n")) {
			n++
		}
	}
	return n
}

// managers are the field managers of obj's managed fields.
func managers(m metav1.Object) []string {
	var out []string
	for _, f := range m.GetManagedFields() {
		out = append(out, f.Manager)
	}
	return out
}
