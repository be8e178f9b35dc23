package reflector

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/internal/parallel"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// countingRestorer restores through object.Decode, counting the
// restorers it handed out.
type countingRestorer struct {
	forks atomic.Int32
	fail  string // a name whose object fails to restore
}

func (r *countingRestorer) Restore(raw, _ []byte) (*object.Object, error) {
	o, err := object.Decode(raw, object.Prune{})
	if err == nil && o.Name == r.fail {
		return nil, errors.New("cannot restore " + o.Name)
	}
	return o, err
}

func (r *countingRestorer) RestoreColumns([]byte) error { return nil }

func (r *countingRestorer) Restorers(n int) []func(raw, cells []byte) (*object.Object, error) {
	out := make([]func(raw, cells []byte) (*object.Object, error), n)
	for i := range out {
		r.forks.Add(1)
		out[i] = r.Restore
	}
	return out
}

// TestRestoreObjects: a state of many objects is restored on every core,
// in its order; a small one on the caller's; an object that fails fails it.
func TestRestoreObjects(t *testing.T) {
	for _, n := range []int{10, parallel.MinItems, 3*parallel.MinItems + 7} {
		objs := make([]RecordedObject, n)
		for i := range objs {
			objs[i].JSON = fmt.Appendf(nil, `{"metadata":{"name":"o%d","resourceVersion":"%d"}}`, i, i+1)
		}
		r := &countingRestorer{}
		got, err := restoreObjects(r, objs)
		if err != nil || len(got) != n {
			t.Fatalf("%d objects: %d restored, %v", n, len(got), err)
		}
		for i, o := range got {
			if o.Name != fmt.Sprintf("o%d", i) {
				t.Fatalf("%d objects: object %d is %s", n, i, o.Name)
			}
		}
		if forked := r.forks.Load() > 0; forked != (n >= parallel.MinItems && runtime.GOMAXPROCS(0) > 1) {
			t.Errorf("%d objects: restored on several goroutines: %v", n, forked)
		}
		r.fail = fmt.Sprintf("o%d", n-1)
		if _, err := restoreObjects(r, objs); err == nil {
			t.Errorf("%d objects, the last failing: no error", n)
		}
	}
}
