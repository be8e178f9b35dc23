package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
)

// kubeconfigIn writes a copy of the admin kubeconfig whose context's
// namespace is ns: the namespace of a manifest's object that names none,
// without --namespace (which would refuse the objects of other ones).
func kubeconfigIn(t *testing.T, cp *controlplane.ControlPlane, ns string) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(cp.AdminKubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Contexts[cfg.CurrentContext].Namespace = ns
	path := filepath.Join(t.TempDir(), "in-"+ns+".kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// manifests writes, under a new directory: in files/, a manifest of
// objects in two namespaces (ns, named by the manifest, and none: the
// command's) and, in a subdirectory, a file holding one ConfigMap; a
// manifest of objects that do not exist; one of an object that does not
// exist, one in other and one that does; a kustomization of other. It
// returns the directory.
func manifests(t *testing.T, ns, other string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"files/app.yaml": `apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: ` + ns + `}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: elsewhere}
---
apiVersion: v1
kind: Secret
metadata: {name: token, namespace: ` + ns + `}
`,
		"files/sub/one.yaml": `apiVersion: v1
kind: ConfigMap
metadata: {name: alone, namespace: ` + ns + `}
`,
		"absent.yaml": `apiVersion: v1
kind: ConfigMap
metadata: {name: nope, namespace: ` + ns + `}
---
apiVersion: v1
kind: Secret
metadata: {name: nope-too, namespace: ` + ns + `}
`,
		"mixed.yaml": `apiVersion: v1
kind: ConfigMap
metadata: {name: nope, namespace: ` + ns + `}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: elsewhere, namespace: ` + other + `}
---
apiVersion: v1
kind: Secret
metadata: {name: token, namespace: ` + ns + `}
`,
		"kz/kustomization.yaml": "namespace: " + other + "\nresources:\n- cm.yaml\n",
		"kz/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: elsewhere}\n",
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestGetFilesMatchesKubectl: `get -f`, `-R` and `-k` read the objects of
// manifests, each in its namespace, and print what kubectl get prints for
// them: its tables, formats, NotFound errors and refusals, byte for byte
// (AGE aside).
func TestGetFilesMatchesKubectl(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns, other := namespace(t, cs), namespace(t, cs)
	kc := kubeconfigIn(t, cp, other)
	createCM(t, cs, ns, "settings", map[string]string{"app": "web"}, "k", "v")
	createCM(t, cs, ns, "alone", nil)
	createCM(t, cs, other, "elsewhere", nil, "a", "b")
	createSecret(t, cs, ns, "token")
	dir := manifests(t, ns, other)
	app, one := filepath.Join(dir, "files", "app.yaml"), filepath.Join(dir, "files", "sub", "one.yaml")

	cases := [][]string{
		{"get", "-f", app},
		{"get", "-f", app, "-o", "name"},
		{"get", "-f", app, "-o", "yaml"},
		{"get", "-f", app, "-o", "wide", "--show-labels"},
		{"get", "-f", filepath.Join(dir, "files"), "-R"},
		{"get", "-f", filepath.Join(dir, "files"), "-o", "name"},
		{"get", "-f", one, "-o", "yaml"}, // one object of one file: printed alone
		{"get", "-f", one, "-f", one, "-o", "name"},
		{"get", "-f", one, "-o", "jsonpath={.metadata.name}"},
		{"get", "-f", one, "-o", "name"}, // one object alone: its kind is the resource's
		{"get", "-f", filepath.Join(dir, "absent.yaml")},
		{"get", "-f", filepath.Join(dir, "absent.yaml"), "-o", "name"},
		{"get", "-f", filepath.Join(dir, "absent.yaml"), "-f", one, "--ignore-not-found"},
		{"get", "-f", one, "-l", "app=web"},
		{"get", "-k", filepath.Join(dir, "kz")},
		{"get", "-k", filepath.Join(dir, "kz"), "-o", "json"},
		{"get", "-f", app, "-A"},
		{"get", "-f", app, "-A", "-o", "name"},
		// Objects it cannot read, and refusals, in kubectl's words.
		{"get", "-f", app, "-n", ns},
		{"get", "-f", app, "-n", ns, "-o", "name"},
		{"get", "-f", app, "-f", one, "-n", ns, "-o", "name"},
		// Errors as kubectl's resource builder nests them (fileErrorLines).
		{"get", "-f", filepath.Join(dir, "mixed.yaml"), "-n", ns},
		{"get", "-f", filepath.Join(dir, "mixed.yaml"), "-n", ns, "-o", "name"},
		{"get", "-f", filepath.Join(dir, "mixed.yaml"), "-f", one, "-n", ns, "-o", "name"},
		{"get", "-f", filepath.Join(dir, "absent.yaml"), "-f", filepath.Join(dir, "mixed.yaml"), "-n", ns},
		{"get", "-f", one, "-n", other},
		{"get", "-f", one, "-n", other, "-o", "name"},
		{"get", "cm", "-f", app},
		{"get", "-f", one, "-k", filepath.Join(dir, "kz")},
		{"get", "-f", filepath.Join(dir, "missing.yaml")},
	}
	matchKubectl(t, kc, cases, strings.NewReplacer(dir, "DIR"))
}

// TestWatchFiles: `watch -f` follows the objects of a manifest, each in its
// namespace, names those that do not exist yet and prints them once they
// are created; kubectl's `get -w -f` refuses several objects.
func TestWatchFiles(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns, other := namespace(t, cs), namespace(t, cs)
	createCM(t, cs, ns, "settings", nil)
	createCM(t, cs, ns, "unrelated", nil)
	createCM(t, cs, other, "elsewhere", nil)
	createCM(t, cs, other, "unrelated", nil)
	createSecret(t, cs, ns, "token")
	dir := manifests(t, ns, other)

	kc := kubeconfigIn(t, cp, other)
	p := start(t, cp, "watch", "-f", filepath.Join(dir, "files", "app.yaml"), "-o", "json", "--kubeconfig", kc)
	initial := eventStrings(p.events(3))
	want := []string{"APPLIED ConfigMap/" + ns + "/settings", "APPLIED ConfigMap/" + other + "/elsewhere", "APPLIED Secret/" + ns + "/token"}
	slices.Sort(initial)
	slices.Sort(want)
	if !slices.Equal(initial, want) {
		t.Errorf("initial events %q, want %q", initial, want)
	}
	updateCM(t, cs, other, "unrelated", "k", "1") // not in the manifest
	updateCM(t, cs, other, "elsewhere", "k", "1")
	if got := p.nextEvent().String(); got != "APPLIED ConfigMap/"+other+"/elsewhere" {
		t.Errorf("after updating elsewhere: %q", got)
	}
	_, kerr, kcode := kubectl(t, kc, "get", "-w", "-f", filepath.Join(dir, "files", "app.yaml"))
	if kcode == 0 || !strings.Contains(kerr, "watch is only supported on individual resources") {
		t.Errorf("kubectl get -w -f of several objects: exit %d, stderr %q; want its refusal", kcode, kerr)
	}
	deleteCM(t, cs, ns, "settings")
	if got := p.nextEvent().String(); got != "DELETED ConfigMap/"+ns+"/settings" {
		t.Errorf("after deleting settings: %q", got)
	}
	p.Running()

	// As a table, the objects of two namespaces show which is which.
	tbl := start(t, cp, "watch", "-f", filepath.Join(dir, "files", "app.yaml"), "--kubeconfig", kc)
	if h := tbl.Next(); !strings.HasPrefix(h, "EVENT") || !strings.Contains(h, "NAMESPACE") {
		t.Errorf("table header %q, want EVENT and NAMESPACE columns", h)
	}

	note := `configmaps "nope" not found in namespace ` + ns + `; waiting for it to be created`
	q := start(t, cp, "watch", "-f", filepath.Join(dir, "absent.yaml"), "-o", "name")
	q.WaitStderr(note)
	createCM(t, cs, ns, "nope", nil)
	if got := q.Next(); got != "configmap/nope" {
		t.Errorf("after creating it: %q, want configmap/nope", got)
	}
	q.Running()

}
