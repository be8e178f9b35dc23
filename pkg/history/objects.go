package history

import (
	"fmt"
	"slices"

	"github.com/kubectl-reflect/kubectl-reflect/internal/parallel"
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
	decs := []*object.Decoder{dec}
	for range parallel.Workers(len(revs)) - 1 {
		decs = append(decs, dec.Fork())
	}
	err := parallel.Chunks(len(revs), len(decs), func(w, lo, hi int) error {
		for i := lo; i < hi; i++ {
			var err error
			if objs[i], err = decs[w].Decode(revs[i].Object, revs[i].Cells, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(objs, func(a, b *object.Object) int { return store.CompareKeys(store.KeyOf(a), store.KeyOf(b)) })
	return objs, nil
}

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
