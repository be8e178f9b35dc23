package configmapgenerator

import (
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// TestOwnApplies: a ConfigMap is settled by memory only at the
// resourceVersion recorded for its generator and with the same apply
// configuration; anything else, or a forgotten generator, is not.
func TestOwnApplies(t *testing.T) {
	g := store.Key{Namespace: "ns", Name: "g"}
	other := store.Key{Namespace: "ns", Name: "h"}
	ac := []byte(`{"kind":"ConfigMap","metadata":{"name":"g"}}`)
	var a ownApplies
	if a.matches(g, "5", ac) {
		t.Fatal("matches before anything was recorded")
	}
	a.record(g, "5", ac)
	tests := []struct {
		name string
		key  store.Key
		rv   string
		ac   []byte
		want bool
	}{
		{"as recorded", g, "5", ac, true},
		{"written since", g, "6", ac, false},
		{"another configuration", g, "5", []byte(`{"kind":"ConfigMap","metadata":{"name":"g-abc"}}`), false},
		{"another generator", other, "5", ac, false},
		{"no resourceVersion", g, "", ac, false},
	}
	for _, tt := range tests {
		if got := a.matches(tt.key, tt.rv, tt.ac); got != tt.want {
			t.Errorf("%s: matches = %v, want %v", tt.name, got, tt.want)
		}
	}
	a.forget(g)
	if a.matches(g, "5", ac) {
		t.Error("matches after forget")
	}
}
