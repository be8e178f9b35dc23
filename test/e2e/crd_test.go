package e2e

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/kubectl-reflect/kubectl-reflect/test/testkit"
)

// gadgetCRD is a CRD of its own for the test that deletes it (the other
// tests' Widget CRD stays), serving one version.
func gadgetCRD(version string) string {
	return testkit.CRD{
		Group: "example.com", Kind: "Gadget", Plural: "gadgets", Singular: "gadget", Version: version,
		Schema: "{type: object, x-kubernetes-preserve-unknown-fields: true}",
	}.YAML()
}

func createGadget(t *testing.T, dc dynamic.Interface, ns, version, name string) {
	t.Helper()
	gvr := schema.GroupVersionResource{Group: "example.com", Version: version, Resource: "gadgets"}
	g := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/" + version, "kind": "Gadget", "metadata": map[string]any{"name": name},
	}}
	if _, err := dc.Resource(gvr).Namespace(ns).Create(context.Background(), g, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating gadget %s: %v", name, err)
	}
}

// TestWatchCRDDeletedAndRecreated: a CRD deleted while its kind is watched
// does not end the watch. Its objects are printed as DELETED, the kind's
// outage is reported as a warning, and once the CRD is back, serving the
// same version or another one (the kind is found again through
// discovery), a Gadget created afterwards is printed; no error, and watch
// still runs.
func TestWatchCRDDeletedAndRecreated(t *testing.T) {
	for _, back := range []string{"v1", "v2"} {
		t.Run("back as "+back, func(t *testing.T) {
			cp := cluster.Get(t)
			cs := admin(t, cp)
			ns := namespace(t, cs)
			kc := cp.AdminKubeconfig()
			dc := dynamic.NewForConfigOrDie(cp.AdminConfig())
			applyCRD(t, kc, "gadgets.example.com", gadgetCRD("v1"))
			t.Cleanup(func() { kubectl(t, kc, "delete", "crd", "gadgets.example.com", "--ignore-not-found", "--wait") })
			createGadget(t, dc, ns, "v1", "g1")

			p := start(t, cp, "watch", "gadgets", "-n", ns, "-o", "json")
			if got := p.nextEvent().String(); got != "APPLIED Gadget/"+ns+"/g1" {
				t.Fatalf("first event %s, want g1 APPLIED", got)
			}
			if _, stderr, code := kubectl(t, kc, "delete", "crd", "gadgets.example.com", "--wait"); code != 0 {
				t.Fatalf("deleting the CRD: %s", stderr)
			}
			if got := p.nextEvent().String(); got != "DELETED Gadget/"+ns+"/g1" {
				t.Errorf("after the CRD's deletion: %s, want g1 DELETED", got)
			}
			p.WaitStderr("the server could not find the requested resource")

			applyCRD(t, kc, "gadgets.example.com", gadgetCRD(back))
			createGadget(t, dc, ns, back, "g2")
			if got := p.nextEvent().String(); got != "APPLIED Gadget/"+ns+"/g2" {
				t.Errorf("after the CRD is back: %s, want g2 APPLIED", got)
			}
			p.Running()
			for _, l := range strings.Split(strings.TrimRight(p.Stderr.String(), "\n"), "\n") {
				if !strings.HasPrefix(l, "warning: ") {
					t.Errorf("stderr line is not a warning: %q", l)
				}
			}
		})
	}
}
