package recordview

import (
	"bytes"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
)

// TestHistoryContexts: the revisions of several contexts are one table,
// CONTEXT first, in the contexts' order; --diff's header lines name the
// context first.
func TestHistoryContexts(t *testing.T) {
	at := time.Date(2026, 12, 6, 7, 0, 0, 0, time.UTC)
	obj := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings","namespace":"web"},"data":{"k":"1"}}`)
	rev := func(rv uint64, op history.Op, manager string) history.Revision {
		return history.Revision{Namespace: "web", Name: "settings", RV: rv, Time: at, Op: op, Manager: manager, Object: obj}
	}
	var out bytes.Buffer
	err := ContextsTable(&out, []ContextRevisions{
		{Context: "west", Revisions: []history.Revision{rev(9, history.Added, "kubectl-create"), rev(12, history.Deleted, "kubectl")}},
		{Context: "east", Revisions: []history.Revision{rev(7, history.Initial, "")}},
	})
	want := `CONTEXT   REVISION   TIME                   OPERATION   MANAGER
west      9          2026-12-06T07:00:00Z   ADDED       kubectl-create
west      12         2026-12-06T07:00:00Z   DELETED     <none>
east      7          2026-12-06T07:00:00Z   INITIAL     <none>
`
	if err != nil || out.String() != want {
		t.Errorf("ContextsTable: %v\n%s\nwant:\n%s", err, out.String(), want)
	}

	out.Reset()
	cm := kube.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Kind: "ConfigMap", Namespaced: true}
	err = History{W: &out, Kind: cm, Context: "east"}.Diffs([]history.Revision{rev(12, history.Deleted, "")})
	if want := "east: DELETED configmaps/settings (resourceVersion 12) at 2026-12-06T07:00:00Z\n"; err != nil || out.String() != want {
		t.Errorf("Diffs of a context: %v, %q, want %q", err, out.String(), want)
	}
}
