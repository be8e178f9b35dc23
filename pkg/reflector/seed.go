package reflector

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// Recorded is a state of one resource in one scope that was recorded
// elsewhere (a daemon's history): its objects at ResourceVersion, as a LIST
// of the reflector's client would have brought them then, and what changed
// after it, in order, up to Until ("": ResourceVersion).
type Recorded struct {
	// Objects decodes the state's objects, decode[w] on the w-th of
	// len(decode) goroutines at once, in the API server's order (nil: no
	// object). It reads them as it decodes: a state of many objects is
	// never all JSON in memory.
	Objects func(decode []object.DecodeFunc) ([]*object.Object, error)
	// Columns are the resource's Table columns (JSON), nil when unknown.
	Columns         []byte
	ResourceVersion string
	Changes         []RecordedChange
	Until           string
}

// RecordedChange is one change after a Recorded state: the object as it
// became (its JSON and printer cells, nil when none; its last state when
// Deleted), at ResourceVersion.
type RecordedChange struct {
	JSON, Cells     []byte
	Deleted         bool
	ResourceVersion string
}

// ErrUnseeded is what Recorded.Objects fails with when the record turns
// out to be no start after all, and has said why itself: the reflector
// then lists, without a word.
var ErrUnseeded = errors.New("nothing recorded to start from")

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
	Restorers(n int) []object.DecodeFunc
}

var _ ParallelRestorer = (*kube.Client)(nil)

// seedFrom is the watcher's seeder of r: what seed recorded of r's resource
// in scope, decoded by r's client; nothing when the client is no Restorer,
// and nothing (a list) when any of it fails to decode, told to onError.
func (r *Reflector) seedFrom(seed Seeder, scope kube.Scope, onError func(error)) watch.Seeder[*object.Object] {
	restorer, ok := r.client.(Restorer)
	if seed == nil || !ok {
		return nil
	}
	return func(ctx context.Context) (watch.Seed[*object.Object], bool) {
		rec, ok := seed(ctx, r.client.Resource(), scope)
		if !ok {
			return watch.Seed[*object.Object]{}, false
		}
		s, err := restore(restorer, rec)
		if errors.Is(err, ErrUnseeded) {
			return watch.Seed[*object.Object]{}, false
		}
		if err != nil {
			onError(fmt.Errorf("restoring %s from its record: %w", r.client.Resource(), err))
			return watch.Seed[*object.Object]{}, false
		}
		return s, true
	}
}

// restore decodes rec with restorer: its objects (on every core when the
// restorer can: a ParallelRestorer), its changes as events, its columns.
func restore(restorer Restorer, rec Recorded) (watch.Seed[*object.Object], error) {
	s := watch.Seed[*object.Object]{ResourceVersion: rec.ResourceVersion, Until: rec.Until,
		Changes: make([]watch.Event[*object.Object], 0, len(rec.Changes))}
	if rec.Objects != nil {
		decode := []object.DecodeFunc{restorer.Restore}
		if pr, ok := restorer.(ParallelRestorer); ok && runtime.GOMAXPROCS(0) > 1 {
			decode = pr.Restorers(runtime.GOMAXPROCS(0))
		}
		var err error
		if s.Items, err = rec.Objects(decode); err != nil {
			return s, err
		}
	}
	for _, c := range rec.Changes {
		obj, err := restorer.Restore(c.JSON, c.Cells)
		if err != nil {
			return s, err
		}
		ev := watch.Event[*object.Object]{Type: watch.Apply, Object: obj, ResourceVersion: c.ResourceVersion}
		if c.Deleted {
			ev.Type = watch.Delete
		}
		s.Changes = append(s.Changes, ev)
	}
	return s, restorer.RestoreColumns(rec.Columns)
}
