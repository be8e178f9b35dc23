package reflector

import (
	"context"
	"fmt"

	"github.com/kubectl-reflect/kubectl-reflect/internal/parallel"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/listwatch"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// Recorded is a state of one resource in one scope that was recorded
// elsewhere (a daemon's history): its objects at ResourceVersion, as a LIST
// of the reflector's client would have brought them then, and what changed
// after it, in order, up to Until ("": ResourceVersion).
type Recorded struct {
	Objects []RecordedObject
	// Columns are the resource's Table columns (JSON), nil when unknown.
	Columns         []byte
	ResourceVersion string
	Changes         []RecordedChange
	Until           string
}

// RecordedObject is one object's JSON and printer cells (nil when none).
type RecordedObject struct{ JSON, Cells []byte }

// RecordedChange is one change after a Recorded state: the object as it
// became (its last state when Deleted), at ResourceVersion.
type RecordedChange struct {
	RecordedObject
	Deleted         bool
	ResourceVersion string
}

// Seeder returns what was recorded of res in scope, complete at its
// ResourceVersion, and false when nothing usable was (the reflector then
// lists). It is asked once, when the reflector starts; it reports its own
// errors.
type Seeder func(ctx context.Context, res kube.Resource, scope kube.Scope) (Recorded, bool)

// Restorer is a Client that can decode what was recorded elsewhere as it
// decodes its own LIST; *kube.Client is one. A reflector whose client is
// not one is never seeded.
type Restorer interface {
	Restore(raw, cells []byte) (*object.Object, error)
	RestoreColumns(defs []byte) error
}

var _ Restorer = (*kube.Client)(nil)

// ParallelRestorer is a Restorer that restores on several goroutines at
// once, each function one of them; *kube.Client is one.
type ParallelRestorer interface {
	Restorers(n int) []func(raw, cells []byte) (*object.Object, error)
}

var _ ParallelRestorer = (*kube.Client)(nil)

// seedFrom is the watcher's seeder of r: what seed recorded of r's resource
// in scope, decoded by r's client; nothing when the client is no Restorer,
// and nothing (a list) when any of it fails to decode, told to onError.
func (r *Reflector) seedFrom(seed Seeder, scope kube.Scope, onError func(error)) listwatch.Seeder[*object.Object] {
	restorer, ok := r.client.(Restorer)
	if seed == nil || !ok {
		return nil
	}
	return func(ctx context.Context) (listwatch.Seed[*object.Object], bool) {
		rec, ok := seed(ctx, r.client.Resource(), scope)
		if !ok {
			return listwatch.Seed[*object.Object]{}, false
		}
		s, err := restore(restorer, rec)
		if err != nil {
			onError(fmt.Errorf("restoring %s from its record: %w", r.client.Resource(), err))
			return listwatch.Seed[*object.Object]{}, false
		}
		return s, true
	}
}

// restore decodes rec with restorer: its objects, its changes as events,
// its columns.
func restore(restorer Restorer, rec Recorded) (listwatch.Seed[*object.Object], error) {
	s := listwatch.Seed[*object.Object]{ResourceVersion: rec.ResourceVersion, Until: rec.Until,
		Changes: make([]listwatch.Event[*object.Object], 0, len(rec.Changes))}
	var err error
	if s.Items, err = restoreObjects(restorer, rec.Objects); err != nil {
		return s, err
	}
	for _, c := range rec.Changes {
		obj, err := restorer.Restore(c.JSON, c.Cells)
		if err != nil {
			return s, err
		}
		ev := listwatch.Event[*object.Object]{Type: listwatch.Apply, Object: obj, ResourceVersion: c.ResourceVersion}
		if c.Deleted {
			ev.Type = listwatch.Delete
		}
		s.Changes = append(s.Changes, ev)
	}
	return s, restorer.RestoreColumns(rec.Columns)
}

// restoreObjects decodes objs, on every core when there are many and the
// restorer can (ParallelRestorer): a list of many objects on one core is
// most of a warm restart.
func restoreObjects(restorer Restorer, objs []RecordedObject) ([]*object.Object, error) {
	out := make([]*object.Object, len(objs))
	workers := parallel.Workers(len(objs))
	restorers := []func(raw, cells []byte) (*object.Object, error){restorer.Restore}
	if pr, ok := restorer.(ParallelRestorer); ok && workers > 1 {
		restorers = pr.Restorers(workers)
	}
	return out, parallel.Chunks(len(objs), len(restorers), func(w, lo, hi int) error {
		for i := lo; i < hi; i++ {
			var err error
			if out[i], err = restorers[w](objs[i].JSON, objs[i].Cells); err != nil {
				return err
			}
		}
		return nil
	})
}
