package controllers

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/controllers/configmapgenerator"
	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
)

// The manifests of deploy/ (the tests run in test/controllers), and what
// they name.
const (
	deployDir       = "../../deploy"
	deployNamespace = "kubectl-reflect-system"
	deployAccount   = "kubectl-reflect"
	deployUser      = "system:serviceaccount:" + deployNamespace + ":" + deployAccount
)

func deployFile(name string) string { return filepath.Join(deployDir, name) }

// applyDeployFiles applies some of deploy/'s files for real with kubectl.
func applyDeployFiles(t *testing.T, cp *controlplane.ControlPlane, names ...string) {
	t.Helper()
	args := []string{"apply"}
	for _, n := range names {
		args = append(args, "-f", deployFile(n))
	}
	if out, errOut, code := kubectl(t, cp, args...); code != 0 {
		t.Fatalf("kubectl apply %v: exit %d\n%s%s", names, code, out, errOut)
	}
}

// TestDeployDryRun: `kubectl apply --dry-run=server -k deploy/` accepts
// every object, with no warning: the API server validates every field
// (kubectl's strict field validation) and Pod Security admission, which
// warns about a Deployment whose pods would violate the namespace's
// "restricted" level, finds nothing to say. The namespace itself is applied
// for real first: a dry run does not create it for the objects in it.
func TestDeployDryRun(t *testing.T) {
	cp := cluster.Get(t)
	applyDeployFiles(t, cp, "namespace.yaml")
	out, errOut, code := kubectl(t, cp, "apply", "--dry-run=server", "-k", deployDir, "-o", "name")
	if code != 0 || errOut != "" {
		t.Fatalf("kubectl apply --dry-run=server -k deploy/: exit %d, stderr:\n%s", code, errOut)
	}
	got := strings.Fields(out)
	slices.Sort(got)
	want := []string{
		"clusterrole.rbac.authorization.k8s.io/kubectl-reflect-configmap-generator",
		"clusterrole.rbac.authorization.k8s.io/kubectl-reflect-mirror",
		"clusterrolebinding.rbac.authorization.k8s.io/kubectl-reflect-configmap-generator",
		"clusterrolebinding.rbac.authorization.k8s.io/kubectl-reflect-mirror",
		"customresourcedefinition.apiextensions.k8s.io/configmapgenerators.kubectl-reflect.io",
		"deployment.apps/kubectl-reflect",
		"namespace/kubectl-reflect-system",
		"role.rbac.authorization.k8s.io/kubectl-reflect-leader-election",
		"rolebinding.rbac.authorization.k8s.io/kubectl-reflect-leader-election",
		"serviceaccount/kubectl-reflect",
	}
	if !slices.Equal(got, want) {
		t.Errorf("dry run applied\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// serviceAccountKubeconfig mints a token of deploy/'s ServiceAccount with
// `kubectl create token` and writes a kubeconfig that uses it, in the
// ServiceAccount's namespace (where --leader-elect puts its Lease), as a
// pod of the Deployment would run.
func serviceAccountKubeconfig(t *testing.T, cp *controlplane.ControlPlane) string {
	t.Helper()
	token, errOut, code := kubectl(t, cp, "create", "token", deployAccount, "-n", deployNamespace, "--duration", "1h")
	if code != 0 {
		t.Fatalf("kubectl create token: exit %d\n%s", code, errOut)
	}
	cfg, err := clientcmd.LoadFromFile(cp.AdminKubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	ctx := cfg.Contexts[cfg.CurrentContext]
	cfg.AuthInfos = map[string]*clientcmdapi.AuthInfo{deployAccount: {Token: strings.TrimSpace(token)}}
	cfg.Contexts = map[string]*clientcmdapi.Context{"sa": {Cluster: ctx.Cluster, AuthInfo: deployAccount, Namespace: deployNamespace}}
	cfg.CurrentContext = "sa"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// can says whether the holder of kubeconfig may verb resource (group "")
// in ns, as the API server's authorizer answers now.
func can(t *testing.T, kubeconfig, verb, group, resource, ns string) bool {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: verb, Group: group, Resource: resource},
	}}
	r, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(context.Background(), review, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("access review: %v", err)
	}
	return r.Status.Allowed
}

// setVerbs sets the verbs on group's resource in the configmap-generator
// ClusterRole, and waits until the authorizer applies them to the
// ServiceAccount (probed with verb probe in ns, "" for all).
func setVerbs(t *testing.T, cp *controlplane.ControlPlane, kubeconfig, group, resource, ns, probe string, verbs ...string) {
	t.Helper()
	roles := admin(t, cp).RbacV1().ClusterRoles()
	role, err := roles.Get(context.Background(), "kubectl-reflect-"+configmapgenerator.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for i, r := range role.Rules {
		if slices.Equal(r.APIGroups, []string{group}) && slices.Equal(r.Resources, []string{resource}) {
			role.Rules[i].Verbs, found = verbs, true
		}
	}
	if !found {
		t.Fatalf("ClusterRole %s has no rule of its own for %s in group %q", role.Name, resource, group)
	}
	if _, err := roles.Update(context.Background(), role, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	want := slices.Contains(verbs, probe)
	eventually(t, fmt.Sprintf("%s may %s %s: %v", deployUser, probe, resource, want), func(context.Context) (bool, error) {
		return can(t, kubeconfig, probe, group, resource, ns) == want, nil
	})
}

// deployRBAC applies deploy/'s namespace, ServiceAccount and the RBAC of
// configmap-generator for real, restores that ClusterRole when the test
// ends, and returns a kubeconfig of the ServiceAccount.
func deployRBAC(t *testing.T, cp *controlplane.ControlPlane) string {
	t.Helper()
	installCRD(t, cp)
	applyDeployFiles(t, cp, "namespace.yaml", "serviceaccount.yaml", "rbac-configmap-generator.yaml", "rbac-leader-election.yaml")
	t.Cleanup(func() { applyDeployFiles(t, cp, "rbac-configmap-generator.yaml") })
	return serviceAccountKubeconfig(t, cp)
}

// TestDeployRBAC: `run-controller configmap-generator -A` with a token of
// deploy/'s ServiceAccount and only deploy/'s RBAC for it generates a
// ConfigMap, writes the status and emits a Warning event; it may not read
// Secrets (least privilege). With create taken from its ClusterRole, a new
// generator's reconcile fails and its log line says which verb on which
// resource was refused, and to whom; given back, the retry generates it.
func TestDeployRBAC(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	kc := deployRBAC(t, cp)
	ns := namespace(t, cs)
	if can(t, kc, "list", "", "secrets", ns) {
		t.Errorf("%s may list secrets with configmap-generator's RBAC only", deployUser)
	}

	p := start(t, cp, "run-controller", configmapgenerator.Name, "-A", "--kubeconfig", kc)
	p.waitErrLine(`^configmap-generator: ready$`)
	applyGenerator(t, cp, ns, "allowed", "  data:\n    a: \"1\"\n")
	waitReady(t, cp, ns, "allowed", metav1.ConditionTrue, configmapgenerator.ReasonGenerated)
	waitConfigMap(t, cs, ns, "allowed", "generated", func(cm *corev1.ConfigMap) bool { return dataIs(cm, "a", "1") })
	applyGenerator(t, cp, ns, "invalid", "  data:\n    a/b: \"1\"\n")
	warningEvent(t, cs, ns, "invalid", configmapgenerator.ReasonInvalidSpec)

	setVerbs(t, cp, kc, "", "configmaps", ns, "create", "get", "list", "watch", "patch", "delete")
	applyGenerator(t, cp, ns, "refused", "  data:\n    a: \"1\"\n")
	line := p.waitErrLine(reconciled(ns, "refused", "error: ") + ".*forbidden")
	t.Logf("the refused write, as run-controller logs it:\n%s", line)
	want := fmt.Sprintf(`User %q cannot create resource "configmaps" in API group "" in the namespace %q`, deployUser, ns)
	if !strings.Contains(line, want) {
		t.Errorf("log line %q does not say %q", line, want)
	}
	select {
	case <-p.done:
		t.Fatalf("run-controller exited on a refused write: %v", p.err)
	default:
	}

	setVerbs(t, cp, kc, "", "configmaps", ns, "create", "get", "list", "watch", "create", "patch", "delete")
	p.waitErrLine(reconciled(ns, "refused", "ok"))
	waitReady(t, cp, ns, "refused", metav1.ConditionTrue, configmapgenerator.ReasonGenerated)
}

// TestDeployRBACNoList: without list on ConfigMapGenerators, run-controller
// cannot read them: it exits 1 with one error line that names the verb,
// the resource and the ServiceAccount.
func TestDeployRBACNoList(t *testing.T) {
	cp := cluster.Get(t)
	kc := deployRBAC(t, cp)
	setVerbs(t, cp, kc, configmapgenerator.Group, "configmapgenerators", "", "list", "get", "watch")
	_, errOut, code := runOnce(t, cp, "run-controller", configmapgenerator.Name, "-A", "-q", "--kubeconfig", kc)
	want := fmt.Sprintf(`User %q cannot list resource "configmapgenerators" in API group "kubectl-reflect.io" at the cluster scope`, deployUser)
	if code != 1 || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "error: configmap-generator: ") || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1 and one line \"error: configmap-generator: ...%s\"", code, errOut, want)
	}
}
