package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// TestGetWithoutListMatchesKubectl: a user who may get objects but not
// list them reads named objects with get as with kubectl get (which GETs
// each), byte for byte; a user who may do neither, and a resource that
// cannot be listed, get kubectl's errors, in its order and words, after
// what was printed.
func TestGetWithoutListMatchesKubectl(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	kc := cp.AdminKubeconfig()
	createCM(t, cs, ns, "a", map[string]string{"app": "web"}, "k", "v")
	createCM(t, cs, ns, "b", nil, "k", "w")
	getter := "getter-" + ns
	allowGet(t, cs, ns, getter)
	manifest := filepath.Join(t.TempDir(), "a.yaml")
	if err := os.WriteFile(manifest, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: "+ns+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	as := func(user string, args ...string) []string { return append(args, "-n", ns, "--as", user) }
	cases := [][]string{
		// Read by name, one GET each.
		as(getter, "get", "cm", "a"),
		as(getter, "get", "cm", "a", "nope", "b"),
		as(getter, "get", "cm", "a", "-o", "json"),
		as(getter, "get", "cm", "a", "b", "-o", "yaml"),
		as(getter, "get", "cm", "a", "b", "-o", "name"),
		as(getter, "get", "cm", "a", "-o", "name"),
		as(getter, "get", "cm", "a", "-o", "wide", "--show-labels"),
		as(getter, "get", "cm", "a", "-L", "app"),
		as(getter, "get", "cm", "nope", "--ignore-not-found"),
		as(getter, "get", "cm,secrets", "a"),
		as(getter, "get", "ns", ns, "default", "-o", "name"),
		as(getter, "get", "-f", manifest),
		as(getter, "get", "-f", manifest, "-o", "json"),
		// Lists refused (and a user who may not even get): the server's errors.
		as(getter, "get", "cm"),
		as(getter, "get", "cm,secrets"),
		as(getter, "get", "cm", "-o", "json"),
		as(getter, "get", "cm", "--ignore-not-found"),
		as("nobody", "get", "cm", "x", "y"),
		as("nobody", "get", "cm", "x", "-o", "json"),
		// A resource that cannot be listed (nor got).
		as(getter, "get", "tokenreviews"),
		as(getter, "get", "tokenreviews", "x"),
		as(getter, "get", "tokenreviews", "x", "--ignore-not-found"),
		as(getter, "get", "cm,tokenreviews", "-o", "name"),
	}
	matchKubectl(t, kc, cases, strings.NewReplacer(ns, "NS", manifest, "a.yaml"))
}

// allowGet lets user get, and only get, ConfigMaps in ns and namespaces.
func allowGet(t *testing.T, cs kubernetes.Interface, ns, user string) {
	t.Helper()
	ctx := context.Background()
	rules := func(resource string) []rbacv1.PolicyRule {
		return []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{resource}, Verbs: []string{"get"}}}
	}
	subjects := []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}
	meta := metav1.ObjectMeta{Name: user, Namespace: ns}
	if _, err := cs.RbacV1().Roles(ns).Create(ctx, &rbacv1.Role{ObjectMeta: meta, Rules: rules("configmaps")}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ref := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: user}
	if _, err := cs.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: meta, Subjects: subjects, RoleRef: ref}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	clusterMeta := metav1.ObjectMeta{Name: user}
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: clusterMeta, Rules: rules("namespaces")}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ref.Kind = "ClusterRole"
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: clusterMeta, Subjects: subjects, RoleRef: ref}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.RbacV1().ClusterRoleBindings().Delete(ctx, user, metav1.DeleteOptions{})
		_ = cs.RbacV1().ClusterRoles().Delete(ctx, user, metav1.DeleteOptions{})
	})
}
