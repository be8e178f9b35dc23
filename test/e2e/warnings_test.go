package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// TestServerWarningsLikeKubectl: the warnings a server sends with its
// responses (v1.37 deprecates v1 ComponentStatus and v1 Endpoints) are
// printed on stderr as kubectl prints them, one line each.
func TestServerWarningsLikeKubectl(t *testing.T) {
	cp := cluster.Get(t)
	ns := namespace(t, admin(t, cp))
	kc := cp.AdminKubeconfig()
	for _, args := range [][]string{
		{"get", "componentstatuses"},
		{"get", "endpoints", "-n", ns},
		{"get", "cs,endpoints", "-n", ns},
	} {
		t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
			_, kubectlErr, _ := kubectl(t, kc, args...)
			want := warnings(kubectlErr)
			if len(want) == 0 {
				t.Fatalf("kubectl %v printed no warning; stderr:\n%s", args, kubectlErr)
			}
			_, stderr, code := runOnce(t, nil, append(args, "--kubeconfig", kc)...)
			if code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", code, stderr)
			}
			// Kinds are read concurrently: their warnings come in any order.
			if got := warnings(stderr); !slices.Equal(sorted(got), sorted(want)) {
				t.Errorf("warnings:\n got %q\nwant %q (kubectl's)", got, want)
			}
		})
	}
}

// TestWarningsAsErrorsLikeKubectl: with --warnings-as-errors, a command
// that got a warning from the server prints it and fails as kubectl's does
// ("error: 1 warning received"); without a warning it succeeds.
func TestWarningsAsErrorsLikeKubectl(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	createEndpoints(t, cs, ns, "ep-1")
	createCM(t, cs, ns, "a", nil)
	matchKubectl(t, cp.AdminKubeconfig(), [][]string{
		{"get", "cs", "etcd-0", "--warnings-as-errors"},
		{"get", "endpoints", "-n", ns, "-o", "name", "--warnings-as-errors"},
		{"get", "cm", "-n", ns, "-o", "name", "--warnings-as-errors"},
		{"get", "endpoints", "nope", "-n", ns, "--warnings-as-errors"}, // the command's error, not the warnings'
	}, strings.NewReplacer(ns, "NS"))
	_, stderr, code := runOnce(t, nil, "watch", "endpoints", "-n", ns, "--timeout", "1s", "--warnings-as-errors", "--kubeconfig", cp.AdminKubeconfig())
	if code != 1 || !strings.HasSuffix(stderr, "error: 1 warning received\n") {
		t.Errorf("watch: exit %d, stderr %q; want 1 and the warnings' error", code, stderr)
	}
}

// TestWatchPrintsServerWarningOnce: a watch prints a warning once, however
// many responses carry it (the list, then the watch) and however many
// events follow.
func TestWatchPrintsServerWarningOnce(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	_, kubectlErr, _ := kubectl(t, cp.AdminKubeconfig(), "get", "endpoints", "-n", ns)
	want := warnings(kubectlErr)
	if len(want) != 1 {
		t.Fatalf("kubectl get endpoints printed warnings %q, want one; stderr:\n%s", want, kubectlErr)
	}

	createEndpoints(t, cs, ns, "ep-1")
	p := start(t, cp, "watch", "endpoints", "-n", ns, "-o", "name", "--max-events", "3")
	if l := p.Next(); l != "endpoints/ep-1" { // listed: the watch is next
		t.Fatalf("first line %q, want endpoints/ep-1", l)
	}
	createEndpoints(t, cs, ns, "ep-2")
	createEndpoints(t, cs, ns, "ep-3")
	for _, name := range []string{"endpoints/ep-2", "endpoints/ep-3"} {
		if l := p.Next(); l != name {
			t.Fatalf("line %q, want %s", l, name)
		}
	}
	if code := p.Wait(); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, p.Stderr.String())
	}
	if got := warnings(p.Stderr.String()); !slices.Equal(got, want) {
		t.Errorf("warnings:\n got %q\nwant %q (kubectl's, once)", got, want)
	}
}

// TestAmbiguousShortNameWarningLikeKubectl: a short name that two kinds
// claim resolves to the first, with kubectl's warning about the other.
func TestAmbiguousShortNameWarningLikeKubectl(t *testing.T) {
	cp := cluster.Get(t)
	kc := cp.AdminKubeconfig()
	for _, group := range []string{"warn-a.example.com", "warn-b.example.com"} {
		applyShortNamedCRD(t, kc, group, "gizmos", "Gizmo", "gzw")
	}
	_, kubectlErr, _ := kubectl(t, kc, "get", "gzw", "-A")
	want := warnings(kubectlErr)
	if len(want) != 1 || !strings.Contains(want[0], `short name "gzw"`) {
		t.Fatalf("kubectl get gzw printed warnings %q, want one about the short name; stderr:\n%s", want, kubectlErr)
	}
	for _, args := range [][]string{
		{"get", "gzw", "-A"},
		{"watch", "gzw", "-A", "--timeout", "1s"}, // --timeout ends it: nothing to wait for
	} {
		_, stderr, code := runOnce(t, nil, append(args, "--kubeconfig", kc)...)
		if code != 0 {
			t.Fatalf("%v: exit %d; stderr:\n%s", args, code, stderr)
		}
		if got := warnings(stderr); !slices.Equal(got, want) {
			t.Errorf("%v: warnings:\n got %q\nwant %q (kubectl's)", args, got, want)
		}
	}
}

// warnings returns the "Warning: " lines of stderr.
func warnings(stderr string) []string {
	var out []string
	for l := range strings.Lines(stderr) {
		if strings.HasPrefix(l, "Warning: ") {
			out = append(out, strings.TrimSuffix(l, "\n"))
		}
	}
	return out
}

func sorted(s []string) []string {
	return slices.Sorted(slices.Values(s))
}

func createEndpoints(t *testing.T, cs kubernetes.Interface, ns, name string) {
	t.Helper()
	// A deprecated kind on purpose: the server warns about it.
	ep := &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
	if _, err := cs.CoreV1().Endpoints(ns).Create(context.Background(), ep, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating endpoints %s: %v", name, err)
	}
}

// applyShortNamedCRD creates a namespaced CRD with one short name, waits until it is
// served and deletes it after the test.
func applyShortNamedCRD(t *testing.T, kubeconfig, group, plural, kind, shortName string) {
	t.Helper()
	name := plural + "." + group
	crd := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: ` + name + `}
spec:
  group: ` + group + `
  names: {kind: ` + kind + `, plural: ` + plural + `, shortNames: [` + shortName + `]}
  scope: Namespaced
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
`
	t.Cleanup(func() { kubectl(t, kubeconfig, "delete", "crd", name, "--wait=false") })
	applyCRD(t, kubeconfig, name, crd)
}
