package reflector

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

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

func (r *countingRestorer) Restorers(n int) []object.DecodeFunc {
	out := make([]object.DecodeFunc, n)
	for i := range out {
		r.forks.Add(1)
		out[i] = r.Restore
	}
	return out
}

// TestRestore: a state is decoded with a restorer per core, its objects
// in their order; an object that fails fails it.
func TestRestore(t *testing.T) {
	var raws [][]byte
	for i := range 5 {
		raws = append(raws, fmt.Appendf(nil, `{"metadata":{"name":"o%d","resourceVersion":"%d"}}`, i, i+1))
	}
	rec := Recorded{ResourceVersion: "5", Objects: func(decode []object.DecodeFunc) ([]*object.Object, error) {
		var out []*object.Object
		for i, raw := range raws {
			o, err := decode[i%len(decode)](raw, nil)
			if err != nil {
				return nil, err
			}
			out = append(out, o)
		}
		return out, nil
	}}
	r := &countingRestorer{}
	s, err := restore(r, rec)
	if err != nil || len(s.Items) != len(raws) || s.ResourceVersion != "5" {
		t.Fatalf("restored %d objects at %q, %v", len(s.Items), s.ResourceVersion, err)
	}
	for i, o := range s.Items {
		if o.Name != fmt.Sprintf("o%d", i) {
			t.Fatalf("object %d is %s", i, o.Name)
		}
	}
	if forks, want := int(r.forks.Load()), runtime.GOMAXPROCS(0); want > 1 && forks != want {
		t.Errorf("%d restorers, want one per core (%d)", forks, want)
	}
	r.fail = "o4"
	if _, err := restore(r, rec); err == nil {
		t.Error("the last object failing: no error")
	}
}
