package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
)

// TestGetListFormatsMatchKubectl: `get -o json|yaml|name` of a List, which
// kubectl-reflect writes one object at a time, is byte for byte what
// kubectl get prints: one kind, several kinds, an empty List, a List longer
// than the output buffer, objects whose JSON kubectl rewrites (HTML
// characters, \u escapes, long lines YAML folds), and a List whose second
// kind is forbidden (the first kind printed, the error reported, exit 1).
func TestGetListFormatsMatchKubectl(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	ctx := context.Background()
	long := strings.Repeat("a line of words long enough for the YAML emitter to fold it ", 3)
	createCM(t, cs, ns, "odd", map[string]string{"app": "odd"}, "html", "<b>&amp;</b>", "long", long, "lines", "one\n  two\n", "u", "café \u2028 😀")
	for i := range 120 { // about 180 KiB of JSON: more than one buffer, gzip from the server
		createCM(t, cs, ns, fmt.Sprintf("cm-%02d", i), map[string]string{"app": "bulk"}, "payload", strings.Repeat(fmt.Sprintf("%03d ", i), 256))
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "token", Namespace: ns}, StringData: map[string]string{"a": "b"}}
	if _, err := cs.CoreV1().Secrets(ns).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	allowConfigMapsOnly(t, ns)
	admin, user := cp.AdminKubeconfig(), cp.UserKubeconfig()

	for _, format := range []string{"json", "yaml", "name"} {
		cases := []struct {
			name       string
			kubeconfig string
			args       []string
		}{
			{"one kind", admin, []string{"get", "cm", "-n", ns}},
			{"one kind, not compressed", admin, []string{"get", "cm", "-n", ns, "--disable-compression"}},
			{"several kinds", admin, []string{"get", "cm,secrets", "-n", ns, "-l", "app!=bulk"}},
			{"named objects of two kinds", admin, []string{"get", "cm/odd", "secret/token", "cm/cm-01", "-n", ns}},
			{"empty", admin, []string{"get", "cm", "-n", ns, "-l", "app=none"}},
			{"second kind forbidden", user, []string{"get", "configmaps,secrets", "-n", ns, "-l", "app=odd"}},
		}
		for _, c := range cases {
			t.Run(format+" "+c.name, func(t *testing.T) {
				args := append(c.args, "-o", format, "--kubeconfig", c.kubeconfig)
				want, got := kubectlAndOurs(t, args, args)
				if got.Stdout != want.Stdout {
					t.Errorf("stdout differs from kubectl's\n--- kubectl reflect:\n%s\n--- kubectl:\n%s", got.Stdout, want.Stdout)
				}
				if got.Code != want.Code {
					t.Errorf("exit %d, kubectl %d", got.Code, want.Code)
				}
				if strings.Contains(want.Stderr, "forbidden") != strings.Contains(got.Stderr, "forbidden") {
					t.Errorf("stderr %q; kubectl's %q", got.Stderr, want.Stderr)
				}
			})
		}
	}
}

// allowConfigMapsOnly lets controlplane.UnprivilegedUser read the
// ConfigMaps of ns, and nothing else.
func allowConfigMapsOnly(t *testing.T, ns string) {
	t.Helper()
	cs := admin(t, cluster.Get(t))
	ctx := context.Background()
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "cm-reader", Namespace: ns},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"}}},
	}
	if _, err := cs.RbacV1().Roles(ns).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "cm-reader", Namespace: ns},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "cm-reader"},
		Subjects:   []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: controlplane.UnprivilegedUser}},
	}
	if _, err := cs.RbacV1().RoleBindings(ns).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}
