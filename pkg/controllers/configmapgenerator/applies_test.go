package configmapgenerator

import (
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// TestOwnApplies: a ConfigMap is known only at the resourceVersion
// recorded for its generator, and settled only with the same apply
// configuration; a forgotten generator is not known.
func TestOwnApplies(t *testing.T) {
	g := store.Key{Namespace: "ns", Name: "g"}
	other := store.Key{Namespace: "ns", Name: "h"}
	ac := []byte(`{"kind":"ConfigMap","metadata":{"name":"g"}}`)
	var a ownApplies
	if _, known := a.settled(g, "5", ac); known {
		t.Fatal("known before anything was recorded")
	}
	a.record(g, "5", ac)
	tests := []struct {
		name        string
		key         store.Key
		rv          string
		ac          []byte
		same, known bool
	}{
		{"as recorded", g, "5", ac, true, true},
		{"written since", g, "6", ac, false, false},
		{"another configuration", g, "5", []byte(`{"kind":"ConfigMap","metadata":{"name":"g-abc"}}`), false, true},
		{"another generator", other, "5", ac, false, false},
		{"no resourceVersion", g, "", ac, false, false},
	}
	for _, tt := range tests {
		if same, known := a.settled(tt.key, tt.rv, tt.ac); same != tt.same || known != tt.known {
			t.Errorf("%s: settled = %v, %v, want %v, %v", tt.name, same, known, tt.same, tt.known)
		}
	}
	a.forget(g)
	if _, known := a.settled(g, "5", ac); known {
		t.Error("known after forget")
	}
}
