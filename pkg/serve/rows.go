package serve

import (
	"cmp"
	"slices"

	"github.com/tidwall/gjson"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// The API server's printer for FlowSchemas sorts the rows of each Table it
// answers (a page of a paged list alone) by matching precedence, then name
// (k8s.io/kubernetes/pkg/apis/flowcontrol/util.FlowSchemaSequence);
// kubectl prints them so. Other resources' rows come in key order.
var flowSchemas = schema.GroupResource{Group: "flowcontrol.apiserver.k8s.io", Resource: "flowschemas"}

// sortRows puts the objects of one Table answer of res in the order of the
// server's rows; page is the answer's own slice.
func sortRows(res schema.GroupResource, page []*object.Object) {
	if res != flowSchemas || len(page) < 2 {
		return
	}
	type row struct {
		precedence int64
		o          *object.Object
	}
	rows := make([]row, len(page))
	for i, o := range page {
		rows[i] = row{gjson.GetBytes(o.JSON(), "spec.matchingPrecedence").Int(), o}
	}
	slices.SortFunc(rows, func(a, b row) int {
		return cmp.Or(cmp.Compare(a.precedence, b.precedence), cmp.Compare(a.o.Name, b.o.Name))
	})
	for i, r := range rows {
		page[i] = r.o
	}
}
