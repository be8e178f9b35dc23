package history

import (
	"context"
	"fmt"
	"runtime"
	"slices"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// ObjectsAt decodes the state of res at rv in s, the objects keep says
// (nil: every one), with their printer cells, in the API server's order
// (store.CompareKeys): a state as get --at prints it, an exact list
// answers it and a warm restart starts from it. decode[w] decodes on the
// w-th of len(decode) goroutines at once, a batch of the state at a time
// (Record.EachAt); an object it decodes to nil is left out.
func ObjectsAt(ctx context.Context, s Record, res string, rv uint64, keep func(*Revision) bool, decode []object.DecodeFunc) ([]*object.Object, error) {
	build := make([]func(*Revision) (*object.Object, error), len(decode))
	for w, d := range decode {
		build[w] = func(r *Revision) (*object.Object, error) { return d(r.Object, r.Cells) }
	}
	return BuildAt(ctx, s, res, rv, keep, build)
}

// BuildAt is ObjectsAt with objects built by the caller from their
// revisions, build[w] on the w-th goroutine; it may read a revision's
// Object and Cells only while it is called (they are buffers EachAt
// reuses), its Namespace and Name are its own.
func BuildAt(ctx context.Context, s Record, res string, rv uint64, keep func(*Revision) bool, build []func(*Revision) (*object.Object, error)) ([]*object.Object, error) {
	outs := make([][]*object.Object, len(build))
	err := s.EachAt(ctx, res, rv, len(build), func(w int, batch []Revision) error {
		for i := range batch {
			r := &batch[i]
			if keep != nil && !keep(r) {
				continue
			}
			o, err := build[w](r)
			if err != nil {
				return fmt.Errorf("decoding %s %s/%s at resourceVersion %d: %w", res, r.Namespace, r.Name, r.RV, err)
			}
			if o != nil {
				outs[w] = append(outs[w], o)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	objs := slices.Concat(outs...)
	slices.SortFunc(objs, compareObjects)
	return objs, nil
}

// compareObjects is store.CompareKeys of a's and b's keys, read from the
// objects' fields (store.KeyOf, generic, calls their methods through a
// dictionary: most of what sorting 100,000 objects cost).
func compareObjects(a, b *object.Object) int {
	return store.CompareKeys(store.Key{Namespace: a.Namespace, Name: a.Name}, store.Key{Namespace: b.Namespace, Name: b.Name})
}

// InNamespace is ObjectsAt's keep for the objects of namespace (every one
// when "").
func InNamespace(namespace string) func(*Revision) bool {
	if namespace == "" {
		return nil
	}
	return func(r *Revision) bool { return r.Namespace == namespace }
}

// Decoders are forks of dec for ObjectsAt, one per core.
func Decoders(dec *object.Decoder) []object.DecodeFunc {
	return dec.Forks(runtime.GOMAXPROCS(0))
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
