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
	a.record(g, "g", "5", ac)
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

// TestOwnAppliesIdle: a reconcile is idle only at the generator's
// resourceVersion the last one that ended well read or wrote, with the
// ConfigMap it left; a new apply, or none, makes nothing idle.
func TestOwnAppliesIdle(t *testing.T) {
	g := store.Key{Namespace: "ns", Name: "g"}
	ac := []byte(`{"kind":"ConfigMap","metadata":{"name":"g-abc"}}`)
	cmAt := func(rv string) func(string) string {
		return func(name string) string {
			if name != "g-abc" {
				return ""
			}
			return rv
		}
	}
	tests := []struct {
		name  string
		setup func(a *ownApplies)
		gen   string // the generator's resourceVersion now
		cm    string // its ConfigMap's
		want  bool
	}{
		{"nothing recorded", func(a *ownApplies) {}, "10", "5", false},
		{"applied, not done", func(a *ownApplies) { a.record(g, "g-abc", "5", ac) }, "10", "5", false},
		{"done, as read", done("10", "11"), "10", "5", true},
		{"done, as its status write made it", done("10", "11"), "11", "5", true},
		{"done, the generator changed since", done("10", "11"), "12", "5", false},
		{"done, the ConfigMap changed since", done("10", "11"), "11", "6", false},
		{"done, the ConfigMap deleted since", done("10", "11"), "11", "", false},
		{"done without a status write", done("10", ""), "10", "5", true},
		{"done without a status write, changed", done("10", ""), "12", "5", false},
		{"done, then applied again", func(a *ownApplies) {
			done("10", "11")(a)
			a.record(g, "g-abc", "7", ac)
		}, "11", "7", false},
		{"done, then forgotten", func(a *ownApplies) {
			done("10", "11")(a)
			a.forget(g)
		}, "11", "5", false},
		{"done without a record (a dry run)", func(a *ownApplies) { a.done(g, "10", "") }, "10", "", false},
		{"no resourceVersion", done("10", ""), "", "5", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a ownApplies
			tt.setup(&a)
			if got := a.idle(g, tt.gen, cmAt(tt.cm)); got != tt.want {
				t.Errorf("idle(%s, ConfigMap at %q) = %v, want %v", tt.gen, tt.cm, got, tt.want)
			}
		})
	}
}

// done records the apply of g-abc at resourceVersion 5, then a reconcile
// that read the generator at read and wrote its status at wrote.
func done(read, wrote string) func(a *ownApplies) {
	g := store.Key{Namespace: "ns", Name: "g"}
	return func(a *ownApplies) {
		a.record(g, "g-abc", "5", []byte(`{"kind":"ConfigMap","metadata":{"name":"g-abc"}}`))
		a.done(g, read, wrote)
	}
}

// TestWrittenOver: a status write's resourceVersion counts only when the
// generator it wrote had the generation the status was made from.
func TestWrittenOver(t *testing.T) {
	tests := []struct {
		name   string
		answer string
		want   string
	}{
		{"the generation read", `{"metadata":{"name":"g","generation":3,"resourceVersion":"42"},"status":{}}`, "42"},
		{"a spec changed since", `{"metadata":{"name":"g","generation":4,"resourceVersion":"42"},"status":{}}`, ""},
		{"no generation", `{"metadata":{"name":"g","resourceVersion":"42"}}`, ""},
		{"not JSON", `k8s\x00`, ""},
		{"empty", ``, ""},
	}
	for _, tt := range tests {
		if got := writtenOver([]byte(tt.answer), 3); got != tt.want {
			t.Errorf("%s: writtenOver = %q, want %q", tt.name, got, tt.want)
		}
	}
}
