package history

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
	"github.com/kubectl-reflect/kubectl-reflect/test/testkit"
)

// TestRecordAll: serve --record with no KIND records every kind: in a
// cluster without nodes (no kube-controller-manager either), the
// namespaces, config maps, a Lease and an Event made after it started,
// Secrets hashed, and a custom resource whose CRD is created after it
// started, which get --at and history then read; serve status says what
// it records; the CRD deleted, the daemon says it no longer records its
// kind. Started again, it resumes every kind from its history.
func TestRecordAll(t *testing.T) {
	e := newEnv(t)
	p := e.serve("--record")
	for _, want := range []string{"Recording every kind the user may list and watch to ", "Serving every kind read-only at "} {
		if !strings.Contains(p.Stderr.String(), want) {
			t.Fatalf("serve --record said no %q:\n%s", want, p.Stderr.String())
		}
	}
	if strings.Contains(strings.ToLower(p.Stderr.String()), "warning:") { // nor the API server's (a deprecated kind)
		t.Errorf("serve --record as the admin warned:\n%s", p.Stderr.String())
	}
	ctx := context.Background()

	cm := e.createCM("settings", nil, "mode", "fast")
	e.recorded("settings", cm.ResourceVersion)
	// The test's namespace was there when recording began: INITIAL.
	if out := e.recordedAs("namespace/"+e.ns, "INITIAL"); !strings.Contains(out, "INITIAL") {
		t.Errorf("history of namespace %s:\n%s", e.ns, out)
	}
	holder := "me"
	lease, err := e.cs.CoordinationV1().Leases(e.ns).Create(ctx, &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: "leader"}, Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder},
	}, metav1.CreateOptions{FieldManager: "elector"})
	if err != nil {
		t.Fatal(err)
	}
	if out := e.recordedAs("lease/leader", lease.ResourceVersion); managerOf(out, lease.ResourceVersion) != "elector" {
		t.Errorf("history of lease/leader:\n%s", out)
	}
	event, err := e.cs.CoreV1().Events(e.ns).Create(ctx, &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "settings.1"},
		InvolvedObject: corev1.ObjectReference{Kind: "ConfigMap", Namespace: e.ns, Name: "settings", APIVersion: "v1"},
		Reason:         "Tuned", Message: "mode set to fast", Type: corev1.EventTypeNormal,
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e.recordedAs("event/settings.1", event.ResourceVersion)
	if out := e.mustRun("get", "events", "-n", e.ns, "--at", event.ResourceVersion, "-o", "custom-columns=REASON:.reason,MESSAGE:.message"); out != "REASON   MESSAGE\nTuned    mode set to fast\n" {
		t.Errorf("get events --at %s:\n%s", event.ResourceVersion, out)
	}
	secret := e.createSecret("token")
	e.recordedAs("secret/token", secret.ResourceVersion)
	if out := e.mustRun("history", "secret/token", "-n", e.ns, "--revision", secret.ResourceVersion); !strings.Contains(out, "k: sha256:") || strings.Contains(out, "dG9rZW4") {
		t.Errorf("the history holds the secret's value, not its hash:\n%s", out)
	}

	// A CRD created after the daemon started, then an object of it.
	group := e.ns + ".example.com"
	e.widgetCRD(group)
	e.apply("apiVersion: " + group + "/v1\nkind: Widget\nmetadata:\n  name: gear\n  namespace: " + e.ns + "\nspec:\n  teeth: 12\n")
	rv := strings.TrimSpace(e.kubectl("get", "widgets."+group, "gear", "-n", e.ns, "-o", "jsonpath={.metadata.resourceVersion}"))
	e.recordedAs("widgets."+group+"/gear", rv)
	if out := e.mustRun("get", "widgets."+group, "-n", e.ns, "--at", rv, "-o", "jsonpath={.items[*].spec.teeth}"); out != "12" {
		t.Errorf("get widgets --at %s: %q, want 12", rv, out)
	}
	if !regexp.MustCompile(`(?m)^Recording widgets\.` + regexp.QuoteMeta(group) + ` too$`).MatchString(p.Stderr.String()) {
		t.Errorf("the daemon did not say it records widgets:\n%s", p.Stderr.String())
	}

	status := e.mustRun("serve", "status")
	for _, re := range []string{
		`(?m)^Recording to .*\.db: every kind the user may list and watch \(\d+ now\)$`,
		`(?m)^RESOURCE +OBJECTS +RESOURCEVERSION +WATCHERS +EVENTS SENT +LAG +RECORDED$`,
		`(?m)^nodes +0 .* yes$`,
		`(?m)^leases\.coordination\.k8s\.io +\d+ .* yes$`,
		`(?m)^events +\d+ .* yes$`,
		`(?m)^widgets\.` + regexp.QuoteMeta(group) + ` +1 .* yes$`,
	} {
		if !regexp.MustCompile(re).MatchString(status) {
			t.Errorf("serve status lacks %s:\n%s", re, status)
		}
	}
	for _, gone := range []string{"\nevents.events.k8s.io ", "\nendpoints "} {
		if strings.Contains(status, gone) {
			t.Errorf("serve status shows %q, which is not recorded:\n%s", strings.TrimSpace(gone), status)
		}
	}

	// A kind no longer served is no longer recorded: said in one line.
	e.kubectl("delete", "crd", "widgets."+group)
	p.WaitErrLine(`^warning: no longer recording widgets\.` + regexp.QuoteMeta(group) + `: the API server no longer serves it$`)
	p.Running()

	// Started again, it resumes every kind from its history, and records
	// what changed while it was away.
	stopServe(t, p)
	holder = "you"
	lease.Spec.HolderIdentity = &holder
	renewed, err := e.cs.CoordinationV1().Leases(e.ns).Update(ctx, lease, metav1.UpdateOptions{FieldManager: "usurper"})
	if err != nil {
		t.Fatal(err)
	}
	e.deleteCM("settings")
	p = e.serve("--record")
	p.WaitErrLine(`^Restored \d+ kinds from the history: resuming their watches$`)
	if out := e.recordedAs("lease/leader", renewed.ResourceVersion); managerOf(out, renewed.ResourceVersion) != "usurper" {
		t.Errorf("history of lease/leader, changed while the daemon was away:\n%s", out)
	}
	e.checkOps(map[string][]string{"settings": {"ADDED", "DELETED"}})
	if got := e.daemonMetric(p, `kubectl_reflect_serve_relists_total{resource="leases.coordination.k8s.io"}`); got != "0" {
		t.Errorf("the daemon relisted leases (%s times): it should have resumed its watch", got)
	}
}

// TestRecordAllRefused: a user allowed some kinds only records those: the
// kinds the API server refuses are named in one line, and the daemon
// records the others and keeps running.
func TestRecordAllRefused(t *testing.T) {
	e := newEnv(t)
	e.kubeconfig = e.cp.UserKubeconfig()
	allowRecording(t, e, controlplane.UnprivilegedUser)
	p := e.serve("--record")
	p.Running()
	var refused []string
	for line := range strings.SplitSeq(p.Stderr.String(), "\n") {
		if strings.HasPrefix(line, "warning:") {
			refused = append(refused, line)
		}
	}
	if len(refused) != 1 || !strings.HasPrefix(refused[0], "warning: not recording what this user may not list and watch (403): ") {
		t.Fatalf("want one line naming the kinds refused:\n%s", p.Stderr.String())
	}
	names := strings.Split(strings.TrimPrefix(refused[0], "warning: not recording what this user may not list and watch (403): "), ", ")
	for _, want := range []string{"secrets", "nodes", "pods", "customresourcedefinitions.apiextensions.k8s.io"} {
		if !slices.Contains(names, want) {
			t.Errorf("the line does not name %s: %s", want, refused[0])
		}
	}
	for _, allowed := range []string{"configmaps", "namespaces", "leases.coordination.k8s.io"} {
		if slices.Contains(names, allowed) {
			t.Errorf("the line names %s, which the user may list and watch: %s", allowed, refused[0])
		}
	}

	cm := e.createCM("settings", nil, "mode", "fast")
	e.recorded("settings", cm.ResourceVersion)
	status := e.mustRun("serve", "status")
	for _, re := range []string{
		`(?m)^Recording to .*\.db: every kind the user may list and watch \(3 now\)$`,
		`(?m)^Not recording what the user may not list and watch \(403\): .*\bsecrets\b`,
		`(?m)^configmaps +\d+ .* yes$`,
	} {
		if !regexp.MustCompile(re).MatchString(status) {
			t.Errorf("serve status lacks %s:\n%s", re, status)
		}
	}
	p.Running()
	if n := strings.Count(p.Stderr.String(), "warning:"); n != 1 {
		t.Errorf("%d warnings, want the one:\n%s", n, p.Stderr.String())
	}
}

// allowRecording lets user list and watch config maps, namespaces and
// leases in every namespace, and nothing else.
func allowRecording(t *testing.T, e *env, user string) {
	t.Helper()
	ctx := context.Background()
	name := "recorder-" + e.ns
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"configmaps", "namespaces"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get", "list", "watch"}},
	}}
	if _, err := e.cs.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	if _, err := e.cs.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = e.cs.RbacV1().ClusterRoleBindings().Delete(ctx, name, metav1.DeleteOptions{})
		_ = e.cs.RbacV1().ClusterRoles().Delete(ctx, name, metav1.DeleteOptions{})
	})
}

// apply applies manifest with kubectl.
func (e *env) apply(manifest string) {
	e.t.Helper()
	path := filepath.Join(e.t.TempDir(), "manifest.yaml")
	if err := os.WriteFile(path, []byte(manifest), 0o600); err != nil {
		e.t.Fatal(err)
	}
	out, errOut, code := testkit.Run(e.t, e.cmd(kubectlBinary, "apply", "-f", path))
	if code != 0 {
		e.t.Fatalf("kubectl apply: exit %d\n%s%s", code, out, errOut)
	}
}

// widgetCRD makes the CRD of Widgets (widgets.GROUP, any spec), gone when
// the test ends, and waits until it is established.
func (e *env) widgetCRD(group string) {
	e.t.Helper()
	crd := testkit.Widget(group)
	e.apply(crd.YAML())
	e.t.Cleanup(func() {
		_, _, _ = testkit.Run(e.t, e.cmd(kubectlBinary, "delete", "crd", crd.Name(), "--wait=false"))
	})
	e.kubectl("wait", "--for=condition=Established", "crd/"+crd.Name(), "--timeout=60s")
}
