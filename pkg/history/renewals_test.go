package history

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// lease is a Lease "name@rv" held by holder, renewed at second renew.
func lease(t *testing.T, spec, holder string, renew int) *object.Object {
	t.Helper()
	name, rv, _ := strings.Cut(spec, "@")
	o, err := object.Decode(fmt.Appendf(nil, `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"namespace":"kube-node-lease","name":%q,"resourceVersion":%q,"managedFields":[{"manager":"kubelet","operation":"Update","time":"2026-12-06T01:00:%02dZ"}]},"spec":{"holderIdentity":%q,"leaseDurationSeconds":40,"renewTime":"2026-12-06T01:00:%02d.000000Z"}}`, name, rv, renew, holder, renew), object.Prune{})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestLeaseRenewals: a Lease's renewals alone are kept once per interval;
// a change of holder always.
func TestLeaseRenewals(t *testing.T) {
	s := openAt(t.TempDir() + "/history.db")(t)
	src := storeSource{
		Store: store.New(store.Options[*object.Object]{}),
		res:   kube.Resource{GVR: schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}, Namespaced: true},
	}
	apply(t, src, list(t, "10", lease(t, "node-1@5", "node-1", 0))...)
	run := startRecorder(s, src, RecorderOptions{LeaseRenewals: time.Hour})
	defer run.stop()
	run.waitFor(t, 10)
	apply(t, src,
		live(watch.Apply, lease(t, "node-1@11", "node-1", 10)), // the first change: kept
		live(watch.Apply, lease(t, "node-1@12", "node-1", 20)), // a renewal: skipped
		live(watch.Apply, lease(t, "node-1@13", "node-1", 30)), // skipped
		live(watch.Apply, lease(t, "node-1@14", "other", 40)),  // a new holder: kept
		live(watch.Apply, lease(t, "node-1@15", "other", 50)),  // skipped
	)
	run.waitFor(t, 15)
	revs, err := s.Revisions(context.Background(), leases, "kube-node-lease", "node-1")
	if err != nil {
		t.Fatal(err)
	}
	var got []uint64
	for _, r := range revs {
		got = append(got, r.RV)
	}
	if fmt.Sprint(got) != "[5 11 14]" {
		t.Errorf("revisions kept %v, want [5 11 14]: the first, the first change, the new holder", got)
	}
}

func TestRenewalOnly(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b string
		want bool
	}{
		{"renewTime and resourceVersion", `{"metadata":{"resourceVersion":"1"},"spec":{"holderIdentity":"a","renewTime":"x"}}`, `{"metadata":{"resourceVersion":"2"},"spec":{"holderIdentity":"a","renewTime":"y"}}`, true},
		{"a new holder", `{"spec":{"holderIdentity":"a","renewTime":"x"}}`, `{"spec":{"holderIdentity":"b","renewTime":"y"}}`, false},
		{"a transition", `{"spec":{"leaseTransitions":1}}`, `{"spec":{"leaseTransitions":2}}`, false},
		{"a label", `{"metadata":{"labels":{"a":"1"}}}`, `{"metadata":{"labels":{"a":"2"}}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := renewalOnly([]byte(tc.a), []byte(tc.b)); got != tc.want {
				t.Errorf("renewalOnly = %v, want %v", got, tc.want)
			}
		})
	}
}
