package e2e

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/test/testkit"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
)

// widgetCRD is testkit's Widget with a short name, a spec of a size and a
// color, and printer columns of them.
func widgetCRD() testkit.CRD {
	c := testkit.Widget("example.com")
	c.ShortNames = []string{"wd"}
	c.Schema = "{type: object, properties: {spec: {type: object, properties: {size: {type: integer}, color: {type: string}}}}}"
	c.Columns = []string{
		"{name: Size, type: integer, jsonPath: .spec.size}",
		"{name: Color, type: string, jsonPath: .spec.color}",
		"{name: Age, type: date, jsonPath: .metadata.creationTimestamp}",
	}
	return c
}

// kubectl runs the kubectl of the control plane's version (kubectlBinary)
// with kubeconfig and returns its stdout, stderr and exit code.
func kubectl(t *testing.T, kubeconfig string, args ...string) (string, string, int) {
	t.Helper()
	return testkit.Run(t, exec.Command(kubectlBinary, append(args, "--kubeconfig", kubeconfig)...))
}

// TestGetMatchesKubectl: `kubectl reflect get` prints what `kubectl get`
// prints, for built-in kinds and a CRD with printer columns, with the usual
// flags. AGE can tick between the two runs, so it is compared loosely.
func TestGetMatchesKubectl(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	ctx := context.Background()
	kc := cp.AdminKubeconfig()
	createCM(t, cs, ns, "b-settings", map[string]string{"app": "web", "tier": "front"}, "k", "v")
	createCM(t, cs, ns, "a-empty", map[string]string{"app": "db"})
	createSecret(t, cs, ns, "token")
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}},
			},
		},
	}
	if _, err := cs.AppsV1().Deployments(ns).Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	createWidgets(t, cp.AdminConfig(), kc, ns)

	cases := [][]string{
		{"get", "configmaps", "-n", ns},
		{"get", "cm,secrets", "-n", ns},
		{"get", "deploy", "-n", ns},
		{"get", "deployments.apps", "-n", ns, "-o", "wide"},
		{"get", "widgets", "-n", ns},
		{"get", "wd", "-n", ns, "--sort-by", ".spec.size"},
		{"get", "cm", "-n", ns, "--show-labels"},
		{"get", "cm", "-n", ns, "-L", "app,tier", "--no-headers"},
		{"get", "cm", "-n", ns, "-l", "app=web"},
		{"get", "cm", "-n", ns, "--field-selector", "metadata.name=a-empty"},
		{"get", "cm", "-n", ns, "--sort-by", "{.metadata.name}", "--show-kind"},
		{"get", "cm", "b-settings", "-n", ns},
		{"get", "cm/b-settings", "-n", ns, "-o", "yaml"},
		{"get", "cm", "a-empty", "b-settings", "-n", ns, "-o", "name"},
		{"get", "cm", "-n", ns, "-o", "json"},
		{"get", "cm", "-n", ns, "-o", "jsonpath={.items[*].metadata.name}"},
		{"get", "cm", "-n", ns, "-o", "custom-columns=NAME:.metadata.name,APP:.metadata.labels.app"},
		{"get", "cm", "-n", ns, "-o", "go-template={{range .items}}{{.metadata.name}} {{end}}"},
		{"get", "cm", "-n", ns, "-l", "app=none"},
		{"get", "cm", "nope", "-n", ns},
		{"get", "cm", "b-settings", "nope", "-n", ns, "-o", "name"},
		{"get", "cm", "nope", "-n", ns, "--ignore-not-found"},
		// Names no object can have, which a field selector must escape.
		{"get", "cm", "a-empty,b-settings", "-n", ns},
		{"get", "cm", "b-settings", `a=b\c`, "-n", ns, "-o", "name"},
		// --raw: the API server's answer to a path, and kubectl's refusals.
		{"get", "--raw", "/api/v1/namespaces/" + ns + "/configmaps/b-settings"},
		{"get", "--raw", "/api/v1/namespaces/" + ns + "/configmaps/nope"},
		{"get", "--raw", "/healthz"},
		{"get", "cm", "--raw", "/api"},
		{"get", "--raw", "/api", "-o", "json"},
		{"get", "--raw", "/api", "-w"},
		{"get", "--raw", "%zz"},
		// --server-print=false: kubectl's own NAME and AGE, not the server's columns.
		{"get", "cm", "-n", ns, "--server-print=false"},
		{"get", "cm", "b-settings", "-n", ns, "--server-print=false", "-o", "wide", "--show-labels"},
		{"get", "cm,secrets", "-n", ns, "--server-print=false", "-L", "app"},
		{"get", "cm", "-n", ns, "--server-print=false", "--sort-by", ".metadata.name", "--no-headers"},
		// The server's order, where it is not the keys': it sorts FlowSchemas'
		// rows by precedence.
		{"get", "flowschemas"},
		{"get", "flowschemas", "-o", "name"},
		// Integers in cells print as integers (2000000000, not 2e+09).
		{"get", "priorityclasses"},
		{"get", "pc", "system-node-critical", "-o", "wide", "--show-kind"},
		// One object by name, printed alone: its kind is the resource's.
		{"get", "cm", "b-settings", "-n", ns, "-o", "name"},
		{"get", "cm/b-settings", "-n", ns, "-o", "name"},
	}
	matchKubectl(t, kc, cases, strings.NewReplacer())
}

// TestGetAllNamespacesInKubectlsOrder: across namespaces, objects are
// printed in the API server's order, that of their keys NAMESPACE/NAME:
// namespace "N-b" before "N" ('-' < '/'), as kubectl prints them, not
// sorted by namespace then name.
func TestGetAllNamespacesInKubectlsOrder(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	longer := ns + "-b"
	if _, err := cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: longer}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.CoreV1().Namespaces().Delete(context.Background(), longer, metav1.DeleteOptions{}) })
	labels := map[string]string{"order": ns}
	for _, name := range []string{"x", "x-y", "x.y", "x0"} {
		createCM(t, cs, ns, name, labels)
		createCM(t, cs, longer, name, labels)
	}
	sel := "order=" + ns
	matchKubectl(t, cp.AdminKubeconfig(), [][]string{
		{"get", "cm", "-A", "-l", sel},
		{"get", "cm", "-A", "-l", sel, "-o", "name"},
		{"get", "cm", "-A", "-l", sel, "-o", "json"},
		{"get", "cm", "-A", "-l", sel, "-o", "jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name} {end}"},
	}, strings.NewReplacer(ns, "NS"))
}

// TestGetWatchServerPrintFalse: get -w --server-print=false prints
// kubectl's own NAME and AGE, under our EVENT column, not the server's
// columns (DATA for a ConfigMap).
func TestGetWatchServerPrintFalse(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	createCM(t, cs, ns, "a", nil, "k", "v")
	p := start(t, cp, "get", "cm", "-n", ns, "-w", "--server-print=false")
	if got := strings.Fields(p.Next()); !slices.Equal(got, []string{"EVENT", "NAME", "AGE"}) {
		t.Errorf("header %q, want EVENT NAME AGE", got)
	}
	if got := strings.Fields(p.Next()); len(got) != 3 || got[0] != "APPLIED" || got[1] != "a" {
		t.Errorf("row %q, want APPLIED a AGE", got)
	}
}

// matchKubectl runs each of cases with kubectl and kubectl-reflect, with
// kubeconfig, and compares their stdout (AGE loosely), stderr and exit
// codes. A subtest is named by its arguments, through names.
func matchKubectl(t *testing.T, kubeconfig string, cases [][]string, names *strings.Replacer) {
	t.Helper()
	for _, args := range cases {
		t.Run(names.Replace(strings.Join(args[1:], " ")), func(t *testing.T) {
			args := append(args, "--kubeconfig", kubeconfig)
			want, got := kubectlAndOurs(t, args, args)
			if normalizeAge(got.Stdout) != normalizeAge(want.Stdout) {
				t.Errorf("stdout differs from kubectl's\n--- kubectl reflect:\n%s\n--- kubectl:\n%s", got.Stdout, want.Stdout)
			}
			if got.Code != want.Code || strings.TrimSpace(got.Stderr) != strings.TrimSpace(want.Stderr) {
				t.Errorf("exit %d, stderr %q; kubectl: exit %d, stderr %q", got.Code, got.Stderr, want.Code, want.Stderr)
			}
		})
	}
}

// TestGetChunksAlignAsKubectl: kubectl get prints each page of
// --chunk-size objects it lists as a table of its own, aligned to the
// widest cells so far, and kubectl-reflect get prints the same bytes: a
// longer name after the first chunk widens the rows from its chunk on,
// not the header's. AGE, the last column, is blanked; every other column
// keeps its padding.
func TestGetChunksAlignAsKubectl(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	kc := cp.AdminKubeconfig()
	for _, name := range []string{"a", "b", "c", "d", "e", "f-a-much-longer-name", "g", "h-longer", "i"} {
		createCM(t, cs, ns, name, nil, "k", "v")
	}
	cases := [][]string{
		{"get", "cm", "-n", ns},
		{"get", "cm", "-n", ns, "--chunk-size", "5"},
		{"get", "cm", "-n", ns, "--chunk-size", "2", "--no-headers"},
		{"get", "cm", "-n", ns, "--chunk-size", "3", "-o", "wide"},
		{"get", "cm", "-n", ns, "--chunk-size", "0"},
		{"get", "cm", "-n", ns, "--chunk-size", "5", "--sort-by", ".metadata.name"},
	}
	for _, args := range cases {
		t.Run(strings.Join(args[3:], " "), func(t *testing.T) {
			args := append(args, "--kubeconfig", kc)
			want, got := kubectlAndOurs(t, args, args)
			if blankLastAge(got.Stdout) != blankLastAge(want.Stdout) || got.Code != want.Code {
				t.Errorf("exit %d (kubectl %d), stderr %q; stdout differs from kubectl's\n--- kubectl reflect:\n%s\n--- kubectl:\n%s", got.Code, want.Code, got.Stderr, got.Stdout, want.Stdout)
			}
		})
	}
	_, stderr, code := runOnce(t, nil, "get", "cm", "-n", ns, "--chunk-size", "-1", "--kubeconfig", kc)
	if code == 0 || stderr != "error: invalid --chunk-size -1: must be 0 or more\n" {
		t.Errorf("--chunk-size -1: exit %d, stderr %q", code, stderr)
	}
}

// blankLastAge replaces an age at the end of each line ("7s", "2m3s", the
// last column of a ConfigMap's table, which ticks) with "AGE", keeping the
// padding of every column before it.
func blankLastAge(s string) string {
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		cut := strings.LastIndexByte(line, ' ') + 1
		if f := line[cut:]; f != "" && f != "AGE" && strings.ContainsAny(f[len(f)-1:], "smhd") {
			lines[i] = line[:cut] + "AGE"
		}
	}
	return strings.Join(lines, "\n")
}

// ageOrHeader is an age ("0s", "5s", "2m3s", "3d4h") or the AGE header,
// with the spaces after it: a column whose width ticks with the clock
// (ageCell, without the header, keeps the padding of a young age).
var ageOrHeader = regexp.MustCompile(`(?m)\b([0-9]+[smhd]([0-9]+[smh])?|AGE)( +|$)`)

// normalizeAge blanks ages and the padding after them, which tick; every
// other byte, the alignment of the columns before an age and YAML's and
// JSON's indentation included, is compared as printed.
func normalizeAge(s string) string {
	return ageOrHeader.ReplaceAllString(s, "AGE ")
}

func createWidgets(t *testing.T, cfg *rest.Config, kubeconfig, ns string) {
	t.Helper()
	w := widgetCRD()
	applyCRD(t, kubeconfig, w.Name(), w.YAML())
	dc := dynamic.NewForConfigOrDie(cfg)
	gvr := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	for i, color := range []string{"red", "blue", "green"} {
		w := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"name": fmt.Sprintf("w%d", i)},
			"spec":     map[string]any{"size": int64(3 - i), "color": color},
		}}
		if _, err := dc.Resource(gvr).Namespace(ns).Create(context.Background(), w, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}
