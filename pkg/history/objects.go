package history

import (
	"fmt"
	"runtime"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// Objects decodes with dec the objects of revs in namespace (every one
// when ""), with their printer cells, in the API server's order
// (store.CompareKeys): a state as get --at prints it and an exact list
// answers it. Many are decoded on every core, a fork of dec each.
func Objects(revs []Revision, namespace string, dec *object.Decoder) ([]*object.Object, error) {
	if namespace != "" {
		revs = slices.DeleteFunc(slices.Clone(revs), func(r Revision) bool { return r.Namespace != namespace })
	}
	objs := make([]*object.Object, len(revs))
	n := runtime.GOMAXPROCS(0)
	if len(revs) < parallelFrom || n == 1 {
		n = 1
	}
	chunk := (len(revs) + n - 1) / n
	var g errgroup.Group
	for i := range n {
		d := dec
		if i > 0 {
			d = dec.Fork()
		}
		lo, hi := i*chunk, min((i+1)*chunk, len(revs))
		g.Go(func() error {
			for j := lo; j < hi; j++ {
				var err error
				if objs[j], err = d.Decode(revs[j].Object, revs[j].Cells, nil); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	slices.SortFunc(objs, func(a, b *object.Object) int { return store.CompareKeys(store.KeyOf(a), store.KeyOf(b)) })
	return objs, nil
}

// parallelFrom is how many objects Objects decodes before it pays to
// decode them on every core.
const parallelFrom = 2048

// NotRecordedError is a query's one line for a resource the history at
// location holds nothing of; it wraps ErrNotRecorded.
func NotRecordedError(res kube.Resource, location string) error {
	return &notRecordedError{res: res, location: location}
}

type notRecordedError struct {
	res      kube.Resource
	location string
}

func (e *notRecordedError) Error() string {
	return fmt.Sprintf("%s: the history %s holds none (serve %s --record records them)", e.res, e.location, e.res)
}

func (e *notRecordedError) Unwrap() error { return ErrNotRecorded }
