package cli

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
)

var (
	cmResource     = kube.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Kind: "ConfigMap", Namespaced: true}
	secretResource = kube.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, Kind: "Secret", Namespaced: true}
)

// TestTargetNames: the names asked of a resource, each once, in the order
// given; how many objects the arguments name.
func TestTargetNames(t *testing.T) {
	tests := []struct {
		name       string
		targets    []kube.Target
		cm, secret []string
		named      bool
		single     bool
	}{
		{"kinds", []kube.Target{{Resource: cmResource}, {Resource: secretResource}}, nil, nil, false, false},
		{"one name", []kube.Target{{Resource: cmResource, Names: []string{"a"}}}, []string{"a"}, nil, true, true},
		{"one name twice", []kube.Target{{Resource: cmResource, Names: []string{"a", "a"}}}, []string{"a"}, nil, true, false},
		{"cm/a secret/b cm/c cm/a", []kube.Target{
			{Resource: cmResource, Names: []string{"a"}}, {Resource: secretResource, Names: []string{"b"}},
			{Resource: cmResource, Names: []string{"c", "a"}},
		}, []string{"a", "c"}, []string{"b"}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tg := &Target{Namespace: "ns"}
			for _, k := range tt.targets {
				tg.Targets = append(tg.Targets, Wanted{Target: k, Namespace: "ns"})
			}
			if got := tg.NamesOf(Feed{cmResource, "ns"}); !reflect.DeepEqual(got, tt.cm) {
				t.Errorf("names(configmaps) = %q, want %q", got, tt.cm)
			}
			if got := tg.NamesOf(Feed{secretResource, "ns"}); !reflect.DeepEqual(got, tt.secret) {
				t.Errorf("names(secrets) = %q, want %q", got, tt.secret)
			}
			if tg.Named() != tt.named || tg.SingleItem() != tt.single {
				t.Errorf("named, singleItem = %v, %v; want %v, %v", tg.Named(), tg.SingleItem(), tt.named, tt.single)
			}
		})
	}
}

// TestSeveralNamespaces: watch shows the NAMESPACE column when the objects
// of manifests are in more than one namespace; cluster-scoped kinds (in
// none) do not count.
func TestSeveralNamespaces(t *testing.T) {
	nsResource := kube.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, Kind: "Namespace"}
	tests := []struct {
		name  string
		feeds []Feed
		want  bool
	}{
		{"none", nil, false},
		{"one namespace", []Feed{{cmResource, "a"}, {secretResource, "a"}}, false},
		{"every namespace", []Feed{{cmResource, ""}}, false},
		{"two namespaces", []Feed{{cmResource, "a"}, {cmResource, "b"}}, true},
		{"a namespace and a cluster-scoped kind", []Feed{{cmResource, "a"}, {nsResource, ""}, {secretResource, "a"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tg := &Target{Feeds: tt.feeds}
			if got := tg.SeveralNamespaces(); got != tt.want {
				t.Errorf("severalNamespaces = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestAppendFileObject: the objects of a manifest merge into one target
// while their resource and namespace stay the same, as cm/a cm/b do.
func TestAppendFileObject(t *testing.T) {
	obj := func(res kube.Resource, ns, name string) Wanted {
		return Wanted{Target: kube.Target{Resource: res, Names: []string{name}}, Namespace: ns}
	}
	var got []Wanted
	for _, w := range []Wanted{
		obj(cmResource, "a", "x"), obj(cmResource, "a", "y"), obj(cmResource, "b", "z"),
		obj(secretResource, "b", "s"), obj(cmResource, "b", "w"),
	} {
		got = appendFileObject(got, w)
	}
	want := []Wanted{
		{Target: kube.Target{Resource: cmResource, Names: []string{"x", "y"}}, Namespace: "a"},
		obj(cmResource, "b", "z"), obj(secretResource, "b", "s"), obj(cmResource, "b", "w"),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("appendFileObject: %+v, want %+v", got, want)
	}
}
