// Package deploy holds the manifests that run kubectl-reflect's built-in
// controllers in a cluster (`kubectl apply -k deploy/`). This test keeps them
// true to the code: the RBAC of each built-in is exactly the Rules it
// declares, the CRD is the one `kubectl reflect crd print` prints, the
// Deployment runs what exists, hardened, and the image (../Dockerfile) is
// built as `make build` builds. test/controllers applies them to a real API
// server.
package deploy_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/builtin"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/builtin/configmapgenerator"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/builtin/mirror"
)

const (
	namespace      = "kubectl-reflect-system"
	serviceAccount = "kubectl-reflect"
)

// builtins are the built-ins deploy/ runs.
func builtins() []builtin.Spec {
	return builtin.NewRegistry(configmapgenerator.Builtin(), mirror.Builtin()).All()
}

// manifests are what `kubectl apply -k deploy/` applies, by kind and name.
type manifests map[string][]byte

func key(kind, name string) string { return kind + "/" + name }

func build(t *testing.T) manifests {
	t.Helper()
	resMap, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), ".")
	if err != nil {
		t.Fatalf("kustomize build deploy/: %v", err)
	}
	out := manifests{}
	for _, r := range resMap.Resources() {
		b, err := r.AsYAML()
		if err != nil {
			t.Fatal(err)
		}
		out[key(r.GetKind(), r.GetName())] = b
	}
	return out
}

// decode decodes the manifest of kind and name into obj.
func (m manifests) decode(t *testing.T, kind, name string, obj runtime.Object) {
	t.Helper()
	b, ok := m[key(kind, name)]
	if !ok {
		t.Fatalf("deploy/ has no %s %s", kind, name)
	}
	if _, _, err := scheme.Codecs.UniversalDeserializer().Decode(b, nil, obj); err != nil {
		t.Fatalf("%s %s: %v", kind, name, err)
	}
}

// grants flattens rules to sorted "group resource verb" triples.
func grants(rules []rbacv1.PolicyRule) []string {
	var out []string
	for _, r := range rules {
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					out = append(out, fmt.Sprintf("%q %s %s", g, res, v))
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func declared(rules []builtin.Rule) []rbacv1.PolicyRule {
	out := make([]rbacv1.PolicyRule, len(rules))
	for i, r := range rules {
		out[i] = rbacv1.PolicyRule{APIGroups: []string{r.Group}, Resources: r.Resources, Verbs: r.Verbs}
	}
	return out
}

// TestClusterRolesAreTheDeclaredRules: each built-in's ClusterRole grants
// exactly its Builtin.Rules, and is bound to the ServiceAccount.
func TestClusterRolesAreTheDeclaredRules(t *testing.T) {
	m := build(t)
	for _, b := range builtins() {
		name := "kubectl-reflect-" + b.Name
		var role rbacv1.ClusterRole
		m.decode(t, "ClusterRole", name, &role)
		for _, r := range role.Rules {
			if len(r.ResourceNames) > 0 || len(r.NonResourceURLs) > 0 {
				t.Errorf("ClusterRole %s: a rule with resourceNames or nonResourceURLs, which Rule cannot declare: %+v", name, r)
			}
		}
		if got, want := grants(role.Rules), grants(declared(b.Rules)); !slices.Equal(got, want) {
			t.Errorf("ClusterRole %s grants\n%s\nbut %s's Builtin.Rules are\n%s", name, strings.Join(got, "\n"), b.Name, strings.Join(want, "\n"))
		}
		var binding rbacv1.ClusterRoleBinding
		m.decode(t, "ClusterRoleBinding", name, &binding)
		checkBinding(t, binding.RoleRef, binding.Subjects, "ClusterRole", name)
	}
}

func checkBinding(t *testing.T, ref rbacv1.RoleRef, subjects []rbacv1.Subject, kind, name string) {
	t.Helper()
	if ref.Kind != kind || ref.Name != name {
		t.Errorf("binding %s refers to %s %s, want %s %s", name, ref.Kind, ref.Name, kind, name)
	}
	want := []rbacv1.Subject{{Kind: "ServiceAccount", Name: serviceAccount, Namespace: namespace}}
	if !slices.Equal(subjects, want) {
		t.Errorf("binding %s binds %+v, want %+v", name, subjects, want)
	}
}

// TestLeaderElectionRole: the Lease of --leader-elect, in the controller's
// namespace only.
func TestLeaderElectionRole(t *testing.T) {
	m := build(t)
	var role rbacv1.Role
	m.decode(t, "Role", "kubectl-reflect-leader-election", &role)
	want := []string{`"coordination.k8s.io" leases create`, `"coordination.k8s.io" leases get`, `"coordination.k8s.io" leases update`}
	if got := grants(role.Rules); !slices.Equal(got, want) || role.Namespace != namespace {
		t.Errorf("Role in %q grants %v, want %v in %s", role.Namespace, got, want, namespace)
	}
	var binding rbacv1.RoleBinding
	m.decode(t, "RoleBinding", "kubectl-reflect-leader-election", &binding)
	checkBinding(t, binding.RoleRef, binding.Subjects, "Role", "kubectl-reflect-leader-election")
}

// TestCRDsAreTheBuiltins: every built-in's CRD is in deploy/, as it prints it.
func TestCRDsAreTheBuiltins(t *testing.T) {
	m := build(t)
	for _, b := range builtins() {
		if b.CRD == nil {
			continue
		}
		var want unstructured.Unstructured
		if err := yaml.Unmarshal(b.CRD, &want.Object); err != nil {
			t.Fatalf("%s's CRD: %v", b.Name, err)
		}
		got, ok := m[key("CustomResourceDefinition", want.GetName())]
		if !ok {
			t.Errorf("deploy/ lacks %s's CRD %s", b.Name, want.GetName())
			continue
		}
		var gotObj unstructured.Unstructured
		if err := yaml.Unmarshal(got, &gotObj.Object); err != nil {
			t.Fatal(err)
		}
		a, _ := yaml.Marshal(gotObj.Object)
		w, _ := yaml.Marshal(want.Object)
		if string(a) != string(w) {
			t.Errorf("deploy/'s CRD %s is not %s's: regenerate it with `kubectl reflect crd print %s`", want.GetName(), b.Name, b.Name)
		}
	}
}

// TestDeployment: two replicas of run-controller with every built-in of
// deploy/, leader election, probes and metrics on one port, a hardened pod.
func TestDeployment(t *testing.T) {
	m := build(t)
	var d appsv1.Deployment
	m.decode(t, "Deployment", "kubectl-reflect", &d)
	if d.Namespace != namespace || d.Spec.Replicas == nil || *d.Spec.Replicas != 2 {
		t.Errorf("Deployment in %q with %v replicas, want 2 in %s", d.Namespace, d.Spec.Replicas, namespace)
	}
	pod := d.Spec.Template.Spec
	if pod.ServiceAccountName != serviceAccount {
		t.Errorf("serviceAccountName %q, want %q", pod.ServiceAccountName, serviceAccount)
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Containers))
	}
	c := pod.Containers[0]
	var names []string
	for _, b := range builtins() {
		names = append(names, b.Name)
	}
	wantArgs := []string{"run-controller", strings.Join(names, ","), "-A", "--leader-elect", "--metrics-addr", ":8080"}
	if !slices.Equal(c.Args, wantArgs) {
		t.Errorf("args %q, want %q", c.Args, wantArgs)
	}
	if len(c.Ports) != 1 || c.Ports[0].Name != "metrics" || c.Ports[0].ContainerPort != 8080 {
		t.Errorf("ports %+v, want metrics on 8080", c.Ports)
	}
	for _, p := range []struct {
		name  string
		probe *corev1.Probe
		path  string
	}{{"liveness", c.LivenessProbe, "/healthz"}, {"readiness", c.ReadinessProbe, "/readyz"}} {
		if p.probe == nil || p.probe.HTTPGet == nil || p.probe.HTTPGet.Path != p.path || p.probe.HTTPGet.Port.String() != "metrics" {
			t.Errorf("%s probe %+v, want GET %s on the metrics port", p.name, p.probe, p.path)
		}
	}
	checkHardened(t, pod, c)
}

func checkHardened(t *testing.T, pod corev1.PodSpec, c corev1.Container) {
	t.Helper()
	sc := c.SecurityContext
	if sc == nil || pod.SecurityContext == nil {
		t.Fatal("no securityContext")
	}
	is := func(b *bool, want bool) bool { return b != nil && *b == want }
	for what, ok := range map[string]bool{
		"runAsNonRoot":                   is(sc.RunAsNonRoot, true) && is(pod.SecurityContext.RunAsNonRoot, true),
		"readOnlyRootFilesystem":         is(sc.ReadOnlyRootFilesystem, true),
		"allowPrivilegeEscalation=false": is(sc.AllowPrivilegeEscalation, false),
		"privileged=false":               sc.Privileged == nil || !*sc.Privileged,
		"capabilities drop ALL":          sc.Capabilities != nil && slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) && len(sc.Capabilities.Add) == 0,
		"seccomp RuntimeDefault":         pod.SecurityContext.SeccompProfile != nil && pod.SecurityContext.SeccompProfile.Type == corev1.SeccompProfileTypeRuntimeDefault,
		"resource requests and limits":   c.Resources.Requests.Cpu().Sign() > 0 && c.Resources.Requests.Memory().Sign() > 0 && c.Resources.Limits.Memory().Sign() > 0,
	} {
		if !ok {
			t.Errorf("container %s: not %s", c.Name, what)
		}
	}
}

// TestEveryFileIsInTheKustomization: no manifest in deploy/ is left out.
func TestEveryFileIsInTheKustomization(t *testing.T) {
	b, err := os.ReadFile("kustomization.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var k struct{ Resources []string }
	if err := yaml.Unmarshal(b, &k); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f != "kustomization.yaml" && !slices.Contains(k.Resources, f) {
			t.Errorf("%s is not in kustomization.yaml's resources", f)
		}
	}
}

// TestImageBuildsAsMake: the Dockerfile stamps the version as `make build`
// does (the same -X flags on the same package) into a static, trimmed
// binary, and its final stage runs it as distroless's nonroot user, which
// the Deployment's runAsUser names.
func TestImageBuildsAsMake(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	makefile, dockerfile := read("Makefile"), read("Dockerfile")
	pkg := regexp.MustCompile(`(?m)^PKG := (\S+)$`).FindStringSubmatch(makefile)
	if pkg == nil || !strings.Contains(dockerfile, "PKG="+pkg[1]) {
		t.Fatalf("the Dockerfile does not set PKG=%v as the Makefile does", pkg)
	}
	xs := regexp.MustCompile(`-X \$\(PKG\)(\S+)=\$\((\w+)\)`).FindAllStringSubmatch(makefile, -1)
	if len(xs) == 0 {
		t.Fatal("no -X $(PKG)...=$(VAR) in the Makefile's LDFLAGS")
	}
	for _, x := range xs {
		if want := fmt.Sprintf("-X $PKG%s=$%s", x[1], x[2]); !strings.Contains(dockerfile, want) {
			t.Errorf("the Dockerfile lacks %q (the Makefile's -X $(PKG)%s=$(%s))", want, x[1], x[2])
		}
		if want := "ARG " + x[2]; !strings.Contains(dockerfile, want) {
			t.Errorf("the Dockerfile lacks %q", want)
		}
	}
	for _, want := range []string{"CGO_ENABLED=0", "-trimpath", `-ldflags "-s -w `, "FROM gcr.io/distroless/static:nonroot", "USER 65532:65532"} {
		if !strings.Contains(dockerfile, want) {
			t.Errorf("the Dockerfile lacks %q", want)
		}
	}
	var d appsv1.Deployment
	build(t).decode(t, "Deployment", "kubectl-reflect", &d)
	if u := d.Spec.Template.Spec.SecurityContext.RunAsUser; u == nil || *u != 65532 {
		t.Errorf("the Deployment's runAsUser %v, want 65532, the image's user", u)
	}
}
