package controllers

import (
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/builtin/configmapgenerator"
	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
)

// TestCRDPrint: `crd print` prints the embedded CRD as it is, which the
// server accepts (kubectl's server-side dry run of it).
func TestCRDPrint(t *testing.T) {
	cp := cluster.Get(t)
	out, errOut, code := runOnce(t, nil, "crd", "print", "configmap-generator")
	if code != 0 || errOut != "" {
		t.Fatalf("crd print: exit %d, stderr %q", code, errOut)
	}
	if out != string(configmapgenerator.Builtin().CRD) {
		t.Errorf("crd print printed another CRD:\n%s", out)
	}
	cmd := []string{"apply", "--dry-run=server", "--server-side", "-f", "-"}
	kout, kerr, kcode := kubectlStdin(t, cp, out, cmd...)
	if kcode != 0 {
		t.Fatalf("kubectl %v: exit %d\n%s%s", cmd, kcode, kout, kerr)
	}
}

// TestCRDInstall: `crd install` applies the CRD and returns once it is
// established: right after it, kubectl serves the kind by its short name and
// category, with the printer columns. Installing again is harmless.
func TestCRDInstall(t *testing.T) {
	cp := cluster.Get(t)
	for range 2 {
		out, errOut, code := runOnce(t, cp, "crd", "install", "configmap-generator")
		if code != 0 {
			t.Fatalf("crd install: exit %d\n%s%s", code, out, errOut)
		}
		want := "customresourcedefinition.apiextensions.k8s.io/configmapgenerators.kubectl-reflect.io serverside-applied\n" +
			"customresourcedefinition.apiextensions.k8s.io/configmapgenerators.kubectl-reflect.io condition met\n"
		if out != want {
			t.Errorf("crd install printed\n%s\nwant\n%s", out, want)
		}
	}
	crdOnce.Lock()
	crdOnce.installed = true
	crdOnce.Unlock()
	established, _, _ := kubectl(t, cp, "get", "crd", "configmapgenerators.kubectl-reflect.io",
		"-o", `jsonpath={.status.conditions[?(@.type=="Established")].status}`)
	if established != "True" {
		t.Errorf("Established = %q", established)
	}
	ns := namespace(t, admin(t, cp))
	gen := "apiVersion: kubectl-reflect.io/v1alpha1\nkind: ConfigMapGenerator\nmetadata:\n  name: app\nspec:\n  data:\n    a: \"1\"\n"
	if out, errOut, code := kubectlStdin(t, cp, gen, "apply", "-n", ns, "-f", "-"); code != 0 {
		t.Fatalf("kubectl apply of a generator: exit %d\n%s%s", code, out, errOut)
	}
	for _, kind := range []string{"cmg", "kubectl-reflect"} {
		out, errOut, code := kubectl(t, cp, "get", kind, "-n", ns)
		if code != 0 {
			t.Fatalf("kubectl get %s: exit %d\n%s", kind, code, errOut)
		}
		if header := strings.Fields(strings.SplitN(out, "\n", 2)[0]); strings.Join(header, " ") != "NAME CONFIGMAP READY REASON AGE" {
			t.Errorf("kubectl get %s: header %q", kind, header)
		}
		if !strings.Contains(out, "app") {
			t.Errorf("kubectl get %s:\n%s", kind, out)
		}
	}
}

// TestRunControllerList: --list is a plain table of the built-ins, needing
// no server.
func TestRunControllerList(t *testing.T) {
	_ = cluster.Get(t) // skip under -short like the rest
	out, errOut, code := runOnce(t, nil, "run-controller", "--list", "--kubeconfig", "/nonexistent")
	if code != 0 || errOut != "" {
		t.Fatalf("run-controller --list: exit %d, stderr %q", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if got := strings.Fields(lines[0]); strings.Join(got, " ") != "NAME DESCRIPTION READS WRITES" {
		t.Fatalf("header %q", lines[0])
	}
	var row string
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, "configmap-generator ") {
			row = l
		}
		if strings.HasSuffix(l, " ") {
			t.Errorf("trailing spaces in %q", l)
		}
	}
	col := strings.Index(lines[0], "READS")
	if row == "" || len(row) < col || !strings.HasPrefix(row[col:], "configmapgenerators.kubectl-reflect.io,configmaps ") {
		t.Errorf("no configmap-generator row reading its kinds under READS:\n%s", out)
	}
}

// TestRunControllerBadInput: bad names and flags are one line `error: ...`
// and a non-zero exit, before anything runs.
func TestRunControllerBadInput(t *testing.T) {
	cp := cluster.Get(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run-controller", "nope"}, `error: unknown controller "nope"; see 'kubectl reflect run-controller --list'`},
		{[]string{"run-controller", "configmap-generator,nope"}, `error: unknown controller "nope"`},
		{[]string{"run-controller"}, "error: run-controller takes one argument, NAME[,NAME...], got 0"},
		{[]string{"run-controller", "configmap-generator", "extra"}, "error: run-controller takes one argument"},
		{[]string{"run-controller", "--list", "configmap-generator"}, "error: --list takes no controller names"},
		{[]string{"run-controller", "configmap-generator", "--concurrency", "0"}, "error: --concurrency must be at least 1, got 0"},
		{[]string{"run-controller", "configmap-generator", "--concurrency", "x"}, `error: invalid argument "x" for "--concurrency" flag`},
		{[]string{"run-controller", "configmap-generator", "--debounce", "-1s"}, "error: --debounce must not be negative"},
		{[]string{"run-controller", "configmap-generator", "--metrics-addr", "8080"}, `error: invalid --metrics-addr "8080"`},
		{[]string{"run-controller", "configmap-generator", "--no-such-flag"}, "error: unknown flag: --no-such-flag"},
		{[]string{"crd", "print", "nope"}, `error: unknown controller "nope"`},
		{[]string{"crd", "print"}, "error: one controller name expected, got 0"},
		{[]string{"crd", "install", "configmap-generator", "--timeout", "0"}, "error: --timeout must be positive"},
		{[]string{"crd", "frob"}, `error: unknown command "frob" for "kubectl reflect crd": want print or install`},
		{[]string{"crd"}, "error: crd needs a command: print NAME or install NAME"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, errOut, code := runOnce(t, cp, tc.args...)
			if code == 0 {
				t.Fatalf("exit 0; stdout %q", out)
			}
			if lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], tc.want) {
				t.Errorf("stderr %q, want one line starting %q", errOut, tc.want)
			}
		})
	}
}

// TestRunControllerWithoutCRD: on a server without the CRD, run-controller
// says how to install it, in one line, and exits non-zero.
func TestRunControllerWithoutCRD(t *testing.T) {
	cp := controlplane.StartForTest(t, controlplane.Options{NoControllerManager: true})
	_, errOut, code := runOnce(t, cp, "run-controller", "configmap-generator", "-n", "default")
	want := "error: configmap-generator: the server does not serve configmapgenerators.kubectl-reflect.io (the ConfigMapGenerator CRD): run kubectl reflect crd install configmap-generator\n"
	if code == 0 || errOut != want {
		t.Errorf("exit %d, stderr %q; want non-zero and %q", code, errOut, want)
	}
}

// TestCompletion: shell completion offers the built-in names, after a
// comma too (never one already in the list), and crd's only those with a
// CRD.
func TestCompletion(t *testing.T) {
	_ = cluster.Get(t) // skip under -short like the rest
	for _, tc := range []struct {
		args          []string
		want, notWant string
	}{
		{[]string{"run-controller", ""}, "configmap-generator", ""},
		{[]string{"run-controller", "conf"}, "configmap-generator", ""},
		{[]string{"run-controller", "configmap-generator,"}, "", "configmap-generator,configmap-generator"},
		{[]string{"crd", "print", ""}, "configmap-generator", ""},
		{[]string{"crd", "install", "c"}, "configmap-generator", ""},
	} {
		out, errOut, code := runOnce(t, nil, append([]string{"__complete"}, tc.args...)...)
		if code != 0 {
			t.Fatalf("__complete %v: exit %d: %s", tc.args, code, errOut)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		got := lines[:len(lines)-1] // the last line is the directive
		if tc.want != "" && !slices.Contains(got, tc.want) {
			t.Errorf("__complete %q = %q, want %q among them", tc.args, got, tc.want)
		}
		if tc.notWant != "" && slices.Contains(got, tc.notWant) {
			t.Errorf("__complete %q = %q, want no %q", tc.args, got, tc.notWant)
		}
	}
}
