package serve

import (
	"fmt"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// TestSortRows: FlowSchemas' rows come by matching precedence, then name,
// as the API server's printer sorts them; other resources' stay in key
// order.
func TestSortRows(t *testing.T) {
	schemas := func() []*object.Object {
		var out []*object.Object
		for _, fs := range []struct {
			name       string
			precedence int
		}{{"catch-all", 10000}, {"exempt", 1}, {"global-default", 9900}, {"probes", 2}, {"z-tie", 500}, {"a-tie", 500}} {
			o, err := object.Decode(fmt.Appendf(nil, `{"metadata":{"name":%q},"spec":{"matchingPrecedence":%d}}`, fs.name, fs.precedence), object.Prune{})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, o)
		}
		return out
	}
	names := func(objs []*object.Object) []string {
		var out []string
		for _, o := range objs {
			out = append(out, o.Name)
		}
		return out
	}
	page := schemas()
	sortRows(flowSchemas, page)
	if got, want := names(page), []string{"exempt", "probes", "a-tie", "z-tie", "global-default", "catch-all"}; !slices.Equal(got, want) {
		t.Errorf("flowschemas: %q, want %q", got, want)
	}
	page = schemas()
	sortRows(schema.GroupResource{Resource: "configmaps"}, page)
	if got, want := names(page), names(schemas()); !slices.Equal(got, want) {
		t.Errorf("configmaps: %q, want them as they were, %q", got, want)
	}
}
