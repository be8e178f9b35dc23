package runcontroller

import (
	"strings"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/completion"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/builtin"
)

func testRegistry() *builtin.Registry {
	return builtin.NewRegistry(
		builtin.Spec{Name: "mirror", Description: "Copies", Reads: []string{"secrets", "configmaps"}, Writes: []string{"secrets"}},
		builtin.Spec{Name: "configmap-generator", Description: "Generates", Reads: []string{"cmg"}, Writes: []string{"configmaps"}, CRD: []byte("crd")},
	)
}

func TestPrintBuiltins(t *testing.T) {
	var b strings.Builder
	if err := printBuiltins(&b, testRegistry().All()); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"NAME                  DESCRIPTION   READS                WRITES\n" +
		"configmap-generator   Generates     cmg                  configmaps\n" +
		"mirror                Copies        secrets,configmaps   secrets\n"
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestCompleteBuiltins(t *testing.T) {
	r := testRegistry()
	for _, tc := range []struct {
		list       bool
		toComplete string
		want       string
	}{
		{true, "", "configmap-generator,mirror"},
		{true, "m", "mirror"},
		{true, "mirror,", "mirror,configmap-generator"},
		{true, "mirror,c", "mirror,configmap-generator"},
		{false, "", "configmap-generator"},
	} {
		got, _ := completion.Builtins(r, tc.list)(nil, nil, tc.toComplete)
		if s := strings.Join(got, ","); s != tc.want {
			t.Errorf("complete(list=%v, %q) = %q, want %q", tc.list, tc.toComplete, s, tc.want)
		}
	}
}
