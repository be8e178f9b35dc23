package completion

import (
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	fakediscovery "k8s.io/client-go/discovery/fake"
	kubetesting "k8s.io/client-go/testing"
)

func resourceList(gv string, resources ...metav1.APIResource) *metav1.APIResourceList {
	return &metav1.APIResourceList{GroupVersion: gv, APIResources: resources}
}

func apiResource(name, kind string, namespaced bool, verbs []string, short ...string) metav1.APIResource {
	return metav1.APIResource{Name: name, Kind: kind, Namespaced: namespaced, Verbs: verbs, ShortNames: short}
}

var readVerbs = []string{"get", "list", "watch"}

// testResources are what the fake discovery and the fake server serve.
var testResources = []*metav1.APIResourceList{
	resourceList("v1",
		apiResource("configmaps", "ConfigMap", true, readVerbs, "cm"),
		apiResource("namespaces", "Namespace", false, readVerbs, "ns"),
		apiResource("pods", "Pod", true, readVerbs, "po"),
		apiResource("pods/log", "Pod", true, []string{"get"}),
		apiResource("bindings", "Binding", true, []string{"create"}),
	),
	resourceList("apps/v1", apiResource("deployments", "Deployment", true, readVerbs, "deploy")),
	resourceList("example.com/v1", apiResource("widgets", "Widget", true, []string{"list", "watch"}, "wd")),
}

func TestCompleteKinds(t *testing.T) {
	dc := &fakediscovery.FakeDiscovery{Fake: &kubetesting.Fake{Resources: testResources}}
	tests := []struct {
		toComplete string
		want       []string
	}{
		{"", []string{"cm", "configmaps", "deploy", "deployments", "deployments.apps", "namespaces", "ns", "po", "pods", "wd", "widgets", "widgets.example.com"}},
		{"c", []string{"cm", "configmaps"}},
		{"deploy", []string{"deploy", "deployments", "deployments.apps"}},
		{"deployments.", []string{"deployments.apps"}},
		{"wi", []string{"widgets", "widgets.example.com"}},
		{"bind", nil},                          // cannot be watched
		{"pods/", nil},                         // subresources are not kinds
		{"cm,p", []string{"cm,po", "cm,pods"}}, // after the last comma
		{"configmaps,deploy.apps,w", []string{"configmaps,deploy.apps,wd", "configmaps,deploy.apps,widgets", "configmaps,deploy.apps,widgets.example.com"}},
		{"configmaps,c", nil},        // configmaps is named already, as cm too
		{"deploy,deployments.", nil}, // the same resource in another form
		{"x,", []string{"x,cm", "x,configmaps", "x,deploy", "x,deployments", "x,deployments.apps", "x,namespaces", "x,ns", "x,po", "x,pods", "x,wd", "x,widgets", "x,widgets.example.com"}},
		{"nothing", nil},
	}
	for _, tt := range tests {
		t.Run(tt.toComplete, func(t *testing.T) {
			var got []string
			for _, c := range completeKinds(dc, tt.toComplete) {
				got = append(got, strings.SplitN(c, "\t", 2)[0])
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("completeKinds(%q) = %q, want %q", tt.toComplete, got, tt.want)
			}
		})
	}
}

func TestCompleteKindsDescribesTheKind(t *testing.T) {
	dc := &fakediscovery.FakeDiscovery{Fake: &kubetesting.Fake{Resources: testResources}}
	got := completeKinds(dc, "deploy")
	want := []string{"deploy\tDeployment", "deployments\tDeployment", "deployments.apps\tDeployment"}
	if !slices.Equal(got, want) {
		t.Errorf("completeKinds(deploy) = %q, want %q", got, want)
	}
}
