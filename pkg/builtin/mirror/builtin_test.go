package mirror

import (
	"slices"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/controller"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

func TestCopyToSource(t *testing.T) {
	tests := []struct {
		name, json string
		want       []controller.Request
	}{
		{"not a mirror", `{"metadata":{"namespace":"a","name":"x","annotations":{"other":"1"}}}`, nil},
		{"a mirror", `{"metadata":{"namespace":"a","name":"x","annotations":{"` + annReflects + `":"src/s"}}}`, []controller.Request{{Namespace: "src", Name: "s"}}},
		{"only auto-reflects", `{"metadata":{"namespace":"a","name":"x","annotations":{"` + annAutoReflects + `":"True"}}}`, nil},
		{"an invalid reflects", `{"metadata":{"namespace":"a","name":"x","annotations":{"` + annReflects + `":"s"}}}`, nil},
		{"reflects itself", `{"metadata":{"namespace":"a","name":"x","annotations":{"` + annReflects + `":"a/x"}}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := object.Decode([]byte(tt.json), object.Prune{})
			if err != nil {
				t.Fatal(err)
			}
			if got := copyToSource(o); !slices.Equal(got, tt.want) {
				t.Errorf("copyToSource = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestBuiltin(t *testing.T) {
	b := Builtin()
	if b.Name != "mirror" || b.New == nil || len(b.Rules) == 0 || b.CRD != nil {
		t.Errorf("Builtin() = %+v", b)
	}
}
