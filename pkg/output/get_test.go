package output

import (
	"reflect"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

var (
	cmKind     = Kind{Kind: "ConfigMap", Version: "v1", Resource: "configmaps", Namespaced: true}
	secretKind = Kind{Kind: "Secret", Version: "v1", Resource: "secrets", Namespaced: true}
)

// TestWithKind: kubectl names the kind in its tables when its answer holds
// several kinds: every kind listed counts, empty or not; of names, only the
// objects found.
func TestWithKind(t *testing.T) {
	cm, secret := Group{Kind: cmKind}, Group{Kind: secretKind}
	with := func(g Group, names []string, objs []*object.Object) Group {
		g.Names, g.Objects = names, objs
		return g
	}
	a := []*object.Object{{Name: "a"}}
	tests := []struct {
		name   string
		groups []Group
		want   bool
	}{
		{"one kind", []Group{with(cm, nil, a)}, false},
		{"two kinds listed, one empty", []Group{with(cm, nil, a), secret}, true},
		{"two kinds named, one found", []Group{with(cm, []string{"a"}, a), with(secret, []string{"a"}, nil)}, false},
		{"two kinds named, both found", []Group{with(cm, []string{"a"}, a), with(secret, []string{"a"}, a)}, true},
		{"one kind named twice", []Group{with(cm, []string{"a"}, a), with(secret, []string{"b"}, nil), with(cm, []string{"a"}, a)}, false},
		{"one kind in two namespaces (a manifest)", []Group{with(cm, []string{"a"}, a), with(Group{Kind: cmKind}, []string{"b"}, a)}, false},
		{"nothing", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := WithKind(tt.groups); got != tt.want {
				t.Errorf("WithKind = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestTables: kubectl starts a table where the resource changes among the
// objects it prints, so arguments that found nothing do not split a table.
func TestTables(t *testing.T) {
	a, b, c := &object.Object{Name: "a"}, &object.Object{Name: "b"}, &object.Object{Name: "c"}
	got := Tables([]Group{
		{Kind: cmKind, Objects: []*object.Object{a}},
		{Kind: secretKind}, // secret/nope
		{Kind: cmKind, Objects: []*object.Object{b}},
		{Kind: secretKind, Objects: []*object.Object{c}},
		{Kind: cmKind},
	})
	want := []Group{{Kind: cmKind, Objects: []*object.Object{a, b}}, {Kind: secretKind, Objects: []*object.Object{c}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Tables = %+v, want %+v", got, want)
	}
}
