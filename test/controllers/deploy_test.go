package controllers

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/builtin/configmapgenerator"
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
	if warnings := unexpectedWarnings(errOut); code != 0 || warnings != "" {
		t.Fatalf("kubectl apply --dry-run=server -k deploy/: exit %d, stderr:\n%s", code, warnings)
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

// TestDeployDryRunWarns: the dry run of TestDeployDryRun would show a
// Deployment whose pods break the namespace's "restricted" Pod Security
// level: an overlay of deploy/ without the container's securityContext is
// warned about.
func TestDeployDryRunWarns(t *testing.T) {
	cp := cluster.Get(t)
	applyDeployFiles(t, cp, "namespace.yaml")
	base, err := filepath.Abs(deployDir)
	if err != nil {
		t.Fatal(err)
	}
	overlay := t.TempDir()
	if base, err = filepath.Rel(overlay, base); err != nil { // kustomize takes no absolute base
		t.Fatal(err)
	}
	kustomization := fmt.Sprintf(`resources:
- %s
patches:
- target: {kind: Deployment, name: kubectl-reflect}
  patch: |-
    - op: remove
      path: /spec/template/spec/containers/0/securityContext
`, base)
	if err := os.WriteFile(filepath.Join(overlay, "kustomization.yaml"), []byte(kustomization), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := kubectl(t, cp, "apply", "--dry-run=server", "-k", overlay, "-o", "name")
	if want := `would violate PodSecurity "restricted:latest"`; code != 0 || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 0 and a warning %q", code, errOut, want)
	}
}

// unexpectedWarnings is kubectl's stderr but for the warning that an object
// (the CRD, when another test installed it with `crd install`, a
// server-side apply) was not created by kubectl apply.
func unexpectedWarnings(stderr string) string {
	var out strings.Builder
	for l := range strings.Lines(stderr) {
		if !strings.Contains(l, "is missing the kubectl.kubernetes.io/last-applied-configuration annotation") {
			out.WriteString(l)
		}
	}
	return out.String()
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
// configmap-generator (and of leader election) for real, restores that
// ClusterRole when the test ends, unbinds mirror's, and returns a
// kubeconfig of the ServiceAccount.
func deployRBAC(t *testing.T, cp *controlplane.ControlPlane) string {
	t.Helper()
	installCRD(t, cp)
	applyDeployFiles(t, cp, "namespace.yaml", "serviceaccount.yaml", "rbac-configmap-generator.yaml", "rbac-leader-election.yaml")
	t.Cleanup(func() { applyDeployFiles(t, cp, "rbac-configmap-generator.yaml") })
	unbindMirror(t, cp)
	return serviceAccountKubeconfig(t, cp)
}

// bindMirror applies mirror's RBAC from deploy/ until the test ends.
func bindMirror(t *testing.T, cp *controlplane.ControlPlane) {
	t.Helper()
	applyDeployFiles(t, cp, "rbac-mirror.yaml")
	t.Cleanup(func() { unbindMirror(t, cp) })
}

// unbindMirror deletes the binding of mirror's ClusterRole, if any, so that
// the ServiceAccount has configmap-generator's RBAC only.
func unbindMirror(t *testing.T, cp *controlplane.ControlPlane) {
	t.Helper()
	err := admin(t, cp).RbacV1().ClusterRoleBindings().Delete(context.Background(), "kubectl-reflect-mirror", metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
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
	p.WaitErrLine(`^configmap-generator: ready$`)
	applyGenerator(t, cp, ns, "allowed", "  data:\n    a: \"1\"\n")
	waitReady(t, cp, ns, "allowed", metav1.ConditionTrue, configmapgenerator.ReasonGenerated)
	waitConfigMap(t, cs, ns, "allowed", "generated", func(cm *corev1.ConfigMap) bool { return dataIs(cm, "a", "1") })
	applyGenerator(t, cp, ns, "invalid", "  data:\n    a/b: \"1\"\n")
	warningEvent(t, cs, ns, "invalid", configmapgenerator.ReasonInvalidSpec)

	setVerbs(t, cp, kc, "", "configmaps", ns, "create", "get", "list", "watch", "patch", "delete")
	applyGenerator(t, cp, ns, "refused", "  data:\n    a: \"1\"\n")
	line := p.WaitErrLine(reconciled(ns, "refused", "error: ") + ".*forbidden")
	t.Logf("the refused write, as run-controller logs it:\n%s", line)
	want := fmt.Sprintf(`User %q cannot create resource "configmaps" in API group "" in the namespace %q`, deployUser, ns)
	if !strings.Contains(line, want) {
		t.Errorf("log line %q does not say %q", line, want)
	}
	select {
	case <-p.Done():
		t.Fatalf("run-controller exited on a refused write: %v", p.Err())
	default:
	}

	setVerbs(t, cp, kc, "", "configmaps", ns, "create", "get", "list", "watch", "create", "patch", "delete")
	p.WaitErrLine(reconciled(ns, "refused", "ok"))
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

// deploymentArgs are the arguments deploy/'s Deployment runs the controller
// with, --metrics-addr moved to a free local port (two processes share this
// host, where the Deployment's pods have an address each).
func deploymentArgs(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(deployFile("deployment.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var d appsv1.Deployment
	if err := yaml.Unmarshal(b, &d); err != nil {
		t.Fatalf("deploy/deployment.yaml: %v", err)
	}
	args := slices.Clone(d.Spec.Template.Spec.Containers[0].Args)
	i := slices.Index(args, "--metrics-addr")
	if i < 0 || i+1 >= len(args) {
		t.Fatalf("deploy/deployment.yaml runs %q: no --metrics-addr ADDR", args)
	}
	args[i+1] = "127.0.0.1:0"
	return args
}

// metricsAddr waits for p to say where it serves /metrics and returns the
// base URL.
func metricsAddr(p *proc) string {
	p.T.Helper()
	line := p.WaitErrLine(`^serving /metrics, /healthz and /readyz on http://127\.0\.0\.1:\d+$`)
	return line[strings.LastIndex(line, " ")+1:]
}

// reconciles is how many successful reconciles of configmap-generator the
// process serving /metrics at addr counted (-1: none yet, no series).
func reconciles(t *testing.T, addr string) float64 {
	t.Helper()
	_, body := httpGet(t, addr+"/metrics")
	return metricValue(body, `controller_runtime_reconcile_total{controller="configmap-generator",result="success"}`)
}

// TestDeployLeaderElection: two replicas as deploy/'s Deployment runs them
// (its arguments: configmap-generator,mirror -A --leader-elect, metrics and
// probes), each with a token of its ServiceAccount and only deploy/'s RBAC,
// short lease durations. Only the leader reconciles: the standby logs no
// reconcile and its metrics count none, while its /healthz and /readyz
// answer 200 (the Deployment's probes keep it running and ready). Killed
// with SIGKILL (no release), the leader's Lease is taken by the standby once
// it expires, and the new leader generates a ConfigMapGenerator created
// after the kill. Neither was refused anything by the RBAC.
func TestDeployLeaderElection(t *testing.T) {
	const leaseDuration = 3 * time.Second
	cp := cluster.Get(t)
	cs := admin(t, cp)
	kc := deployRBAC(t, cp)
	bindMirror(t, cp)
	ns := namespace(t, cs)
	args := append(deploymentArgs(t), "--kubeconfig", kc, "--leader-elect-lease-duration", leaseDuration.String(),
		"--leader-elect-renew-deadline", "2s", "--leader-elect-retry-period", "500ms")
	leaseName := "kubectl-reflect-configmap-generator-mirror"
	lease := regexp.QuoteMeta(deployNamespace + "/" + leaseName)

	a := start(t, cp, args...)
	a.WaitErrLine(`^waiting to lead: Lease ` + lease + `$`)
	aAddr := metricsAddr(a)
	a.WaitErrLine(`^leading: Lease ` + lease + `$`)
	a.WaitErrLine(`^configmap-generator: ready$`)
	b := start(t, cp, args...)
	b.WaitErrLine(`^waiting to lead: Lease ` + lease + `$`)
	bAddr := metricsAddr(b)
	for _, path := range []string{"/healthz", "/readyz"} {
		if code, body := httpGet(t, bAddr+path); code != http.StatusOK {
			t.Errorf("the standby's %s: %d %q, want 200 (the Deployment's probe would restart it or take it out of service)", path, code, body)
		}
	}

	applyGenerator(t, cp, ns, "before", "  data:\n    a: \"1\"\n")
	a.WaitErrLine(reconciled(ns, "before", "ok"))
	waitReady(t, cp, ns, "before", metav1.ConditionTrue, configmapgenerator.ReasonGenerated)
	if n := reconciles(t, aAddr); n < 1 {
		t.Errorf("the leader's metrics count %v reconciles, want at least 1", n)
	}
	if n := reconciles(t, bAddr); n > 0 {
		t.Errorf("the standby's metrics count %v reconciles, want none", n)
	}
	if strings.Contains(b.Stderr.String(), " configmap-generator "+ns+"/") {
		t.Errorf("the standby reconciled while the leader ran:\n%s", b.Stderr.String())
	}

	a.Signal(syscall.SIGKILL)
	a.Wait()
	leases := cs.CoordinationV1().Leases(deployNamespace)
	held, err := leases.Get(context.Background(), leaseName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	applyGenerator(t, cp, ns, "after", "  data:\n    a: \"2\"\n")
	b.WaitErrLine(`^leading: Lease ` + lease + `$`)
	b.WaitErrLine(reconciled(ns, "after", "ok"))
	waitReady(t, cp, ns, "after", metav1.ConditionTrue, configmapgenerator.ReasonGenerated)
	waitConfigMap(t, cs, ns, "after", "generated by the new leader", func(cm *corev1.ConfigMap) bool { return dataIs(cm, "a", "2") })

	taken, err := leases.Get(context.Background(), leaseName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *taken.Spec.HolderIdentity == *held.Spec.HolderIdentity || *taken.Spec.LeaseTransitions <= *held.Spec.LeaseTransitions {
		t.Errorf("Lease held by %q (transitions %d), then by %q (transitions %d): want another holder",
			*held.Spec.HolderIdentity, *held.Spec.LeaseTransitions, *taken.Spec.HolderIdentity, *taken.Spec.LeaseTransitions)
	}
	for name, p := range map[string]*proc{"the killed leader": a, "the new leader": b} {
		if strings.Contains(p.Stderr.String(), "forbidden: User "+strconv.Quote(deployUser)) {
			t.Errorf("%s was refused something deploy/'s RBAC should allow:\n%s", name, p.Stderr.String())
		}
	}
	// Logged, not checked: the times are the candidates' clocks, and when
	// a standby takes over is client-go's leader election, not ours.
	t.Logf("the standby took the Lease %s after the killed leader's last renewal (lease duration %s)",
		taken.Spec.AcquireTime.Sub(held.Spec.RenewTime.Time), leaseDuration)
}

// TestDeployLeaseFlagsBadInput: lease timings client-go's leader election
// would refuse are one line `error: ...` in the flags' words and a non-zero
// exit, before anything runs.
func TestDeployLeaseFlagsBadInput(t *testing.T) {
	cp := cluster.Get(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--leader-elect-lease-duration", "2s", "--leader-elect-renew-deadline", "2s"}, "error: --leader-elect-lease-duration (2s) must be greater than --leader-elect-renew-deadline (2s)"},
		{[]string{"--leader-elect-retry-period", "0s"}, "error: --leader-elect-retry-period must be positive, got 0s"},
		{[]string{"--leader-elect-renew-deadline", "1s", "--leader-elect-retry-period", "1s"}, "error: --leader-elect-renew-deadline (1s) must be greater than 1.2 times --leader-elect-retry-period (1s)"},
		{[]string{"--leader-elect-lease-duration", "soon"}, `error: invalid argument "soon" for "--leader-elect-lease-duration" flag`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			args := append([]string{"run-controller", configmapgenerator.Name, "--leader-elect"}, tc.args...)
			out, errOut, code := runOnce(t, cp, args...)
			if code == 0 {
				t.Fatalf("exit 0; stdout %q", out)
			}
			if lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], tc.want) {
				t.Errorf("stderr %q, want one line starting %q", errOut, tc.want)
			}
		})
	}
}
