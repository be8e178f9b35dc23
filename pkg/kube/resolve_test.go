package kube

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	discoveryfake "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/restmapper"
	clienttesting "k8s.io/client-go/testing"
)

// discovery is what the fake server serves: core v1, apps v1 and a CRD.
var discovery = []*metav1.APIResourceList{{
	GroupVersion: "v1",
	APIResources: []metav1.APIResource{
		{Name: "configmaps", SingularName: "configmap", Namespaced: true, Kind: "ConfigMap", ShortNames: []string{"cm"}, Verbs: []string{"list", "watch"}},
		{Name: "secrets", SingularName: "secret", Namespaced: true, Kind: "Secret", Verbs: []string{"list", "watch"}},
		{Name: "namespaces", SingularName: "namespace", Namespaced: false, Kind: "Namespace", ShortNames: []string{"ns"}, Verbs: []string{"list", "watch"}},
	},
}, {
	GroupVersion: "apps/v1",
	APIResources: []metav1.APIResource{
		{Name: "deployments", SingularName: "deployment", Namespaced: true, Kind: "Deployment", ShortNames: []string{"deploy"}, Verbs: []string{"list", "watch"}},
	},
}, {
	GroupVersion: "example.com/v1",
	APIResources: []metav1.APIResource{
		{Name: "widgets", SingularName: "widget", Namespaced: true, Kind: "Widget", ShortNames: []string{"wd"}, Verbs: []string{"list", "watch"}},
	},
}}

// testMapper is kubectl's mapper over the discovery above: a
// DiscoveryRESTMapper behind a ShortcutExpander.
func testMapper(t *testing.T) meta.RESTMapper {
	t.Helper()
	var groups []*restmapper.APIGroupResources
	for _, list := range discovery {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			t.Fatal(err)
		}
		v := metav1.GroupVersionForDiscovery{GroupVersion: list.GroupVersion, Version: gv.Version}
		groups = append(groups, &restmapper.APIGroupResources{
			Group:              metav1.APIGroup{Name: gv.Group, Versions: []metav1.GroupVersionForDiscovery{v}, PreferredVersion: v},
			VersionedResources: map[string][]metav1.APIResource{gv.Version: list.APIResources},
		})
	}
	dc := &discoveryfake.FakeDiscovery{Fake: &clienttesting.Fake{Resources: discovery}}
	return restmapper.NewShortcutExpander(restmapper.NewDiscoveryRESTMapper(groups), dc, func(w string) { t.Logf("warning: %s", w) })
}

// resolveKinds resolves a comma-separated list of kinds, each as one
// argument without names, through ResolveArgs.
func resolveKinds(mapper meta.RESTMapper, kinds string) ([]Resource, error) {
	var args []Arg
	for _, k := range strings.Split(kinds, ",") {
		args = append(args, Arg{Kind: strings.TrimSpace(k)})
	}
	targets, err := ResolveArgs(mapper, args)
	if err != nil {
		return nil, err
	}
	out := make([]Resource, len(targets))
	for i, t := range targets {
		out[i] = t.Resource
	}
	return out, nil
}

// TestResolve: kinds typed the ways kubectl accepts resolve to resources,
// in order and without duplicates.
func TestResolve(t *testing.T) {
	tests := []struct {
		kinds string
		want  []Resource
	}{
		{"cm", []Resource{configMaps}},
		{"configmaps", []Resource{configMaps}},
		{"configmap", []Resource{configMaps}},
		{"ConfigMap", []Resource{configMaps}},
		{"configmaps.v1.", []Resource{configMaps}},
		{"deploy", []Resource{deployments}},
		{"deploy.apps", []Resource{deployments}},
		{"deployments", []Resource{deployments}},
		{"deployment", []Resource{deployments}},
		{"Deployment", []Resource{deployments}},
		{"deployments.apps", []Resource{deployments}},
		{"deployments.v1.apps", []Resource{deployments}},
		{"Deployment.v1.apps", []Resource{deployments}},
		{"wd", []Resource{widgets}},
		{"wd.example.com", []Resource{widgets}},
		{"widgets", []Resource{widgets}},
		{"widgets.example.com", []Resource{widgets}},
		{"widgets.v1.example.com", []Resource{widgets}},
		{"Widget", []Resource{widgets}},
		{"namespaces", []Resource{namespaces}},
		{"ns", []Resource{namespaces}},
		{"cm,secrets,cm", []Resource{configMaps, secrets}},
		{"secrets,cm,configmaps,ConfigMap", []Resource{secrets, configMaps}},
		{"cm, deploy ,wd", []Resource{configMaps, deployments, widgets}},
	}
	mapper := testMapper(t)
	for _, tt := range tests {
		t.Run(tt.kinds, func(t *testing.T) {
			got, err := resolveKinds(mapper, tt.kinds)
			if err != nil {
				t.Fatalf("Resolve(%q): %v", tt.kinds, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Resolve(%q) = %+v, want %+v", tt.kinds, got, tt.want)
			}
		})
	}
}

// TestResolveErrors: an unknown kind fails the whole list with kubectl's
// words (an empty element is ParseArgs's to refuse).
func TestResolveErrors(t *testing.T) {
	tests := []struct {
		kinds   string
		unknown bool   // wraps ErrUnknownKind
		wantMsg string // the whole message, where it matters
	}{
		{kinds: "x", unknown: true, wantMsg: `the server doesn't have a resource type "x"`},
		{kinds: "cm,x", unknown: true, wantMsg: `the server doesn't have a resource type "x"`},
		{kinds: "x,cm", unknown: true, wantMsg: `the server doesn't have a resource type "x"`},
		{kinds: "pods", unknown: true, wantMsg: `the server doesn't have a resource type "pods"`},
		{kinds: "configmaps.apps", unknown: true},
		{kinds: "deployments.v2.apps", unknown: true},
	}
	mapper := testMapper(t)
	for _, tt := range tests {
		t.Run(tt.kinds, func(t *testing.T) {
			got, err := resolveKinds(mapper, tt.kinds)
			if err == nil {
				t.Fatalf("Resolve(%q) = %+v, want an error", tt.kinds, got)
			}
			if got != nil {
				t.Errorf("Resolve(%q) = %+v with its error, want nil", tt.kinds, got)
			}
			if errors.Is(err, ErrUnknownKind) != tt.unknown {
				t.Errorf("Resolve(%q) = %q; wraps ErrUnknownKind: %v, want %v", tt.kinds, err, !tt.unknown, tt.unknown)
			}
			if tt.wantMsg != "" && err.Error() != tt.wantMsg {
				t.Errorf("Resolve(%q) = %q, want %q", tt.kinds, err, tt.wantMsg)
			}
		})
	}
}
