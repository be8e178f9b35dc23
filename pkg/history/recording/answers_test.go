package recording

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

func revision(name string, rv uint64, op history.Op) history.Revision {
	return history.Revision{Namespace: "a", Name: name, RV: rv, Op: op,
		Object: fmt.Appendf(nil, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"a","name":%q,"resourceVersion":"%d"}}`, name, rv)}
}

// TestChangesOf: revisions read as a store's changes, each knowing what
// came before it where the revisions or the state before say it.
func TestChangesOf(t *testing.T) {
	revs := []history.Revision{
		revision("x", 11, history.Modified), // x existed before 10
		revision("y", 12, history.Added),
		revision("y", 13, history.Modified),
		revision("x", 14, history.Deleted),
		revision("x", 15, history.Added),
	}
	dec := decoderOf(kube.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Kind: "ConfigMap", Namespaced: true})
	x9, err := dec.Decode(revision("x", 9, history.Added).Object, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		before map[store.Key]*object.Object
		want   string
	}{
		{"old states unknown", nil, "Applied x@11 old:unknown, Applied y@12 old:none, Applied y@13 old:12, Deleted x@14, Applied x@15 old:none"},
		{"the state before read", map[store.Key]*object.Object{{Namespace: "a", Name: "x"}: x9},
			"Applied x@11 old:9, Applied y@12 old:none, Applied y@13 old:12, Deleted x@14, Applied x@15 old:none"},
	} {
		changes, err := changesOf(revs, dec, tc.before)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, ch := range changes {
			s := fmt.Sprintf("%v %s@%s", ch.Type, ch.Key.Name, ch.ResourceVersion)
			switch {
			case ch.Type == store.Deleted:
			case ch.OldUnknown:
				s += " old:unknown"
			case ch.HasOld:
				s += " old:" + ch.Old.ResourceVersion
			default:
				s += " old:none"
			}
			got = append(got, s)
		}
		if strings.Join(got, ", ") != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, strings.Join(got, ", "), tc.want)
		}
	}
}
