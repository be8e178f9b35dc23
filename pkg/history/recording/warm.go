package recording

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
)

// Seeder makes a recording daemon restart warm (reflector.SetOptions.Seed):
// each reflector starts from what the history holds of its resource and
// resumes the watch where the record ends. nil when not recording.
func (r *Recording) Seeder() reflector.Seeder {
	if r == nil {
		return nil
	}
	return r.seed
}

// seed is the state of res in scope at the resourceVersion its record is
// complete to, and false when there is none to start from: a resource
// never recorded, Secrets (recorded hashed, unless --record-secret-data
// said otherwise at the time), a scope narrower than a namespace, a
// history that fails to read (said in one line: the reflector lists).
// Its objects are read beside the file's check, and given to the
// reflector once the check passed and every recorder subscribed.
func (r *Recording) seed(ctx context.Context, res kube.Resource, scope kube.Scope) (reflector.Recorded, bool) {
	if !restorable(res, scope) {
		return reflector.Recorded{}, false
	}
	rec, err := Recorded(ctx, r.store, res, scope, 0)
	if err != nil {
		if r.await(ctx, res) && !errors.Is(err, history.ErrNotRecorded) {
			r.notRestored(res, err)
		}
		return reflector.Recorded{}, false
	}
	objects := rec.Objects
	rec.Objects = func(decode []object.DecodeFunc) ([]*object.Object, error) {
		objs, err := objects(decode)
		switch {
		case !r.await(ctx, res):
			return nil, reflector.ErrUnseeded
		case err != nil:
			r.notRestored(res, err)
			return nil, reflector.ErrUnseeded
		}
		r.restored(res, rec.ResourceVersion)
		return objs, nil
	}
	return rec, true
}

// await waits until every recorder of the start subscribed, and res's
// if it is gated (a kind recorded later: gate), and says whether the
// history may be read: it passed its check, and ctx goes on.
func (r *Recording) await(ctx context.Context, res kube.Resource) bool {
	select {
	case <-r.subscribed:
	case <-ctx.Done():
		return false
	}
	r.mu.Lock()
	gate := r.gates[res.GVR.GroupResource()]
	r.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return false
		}
	}
	return !r.failed
}

func (r *Recording) notRestored(res kube.Resource, err error) {
	r.say("warning: %s: not restored from the history (%v): listing\n", res, err)
}

// Recorded is what the history s holds of res in scope (its namespace
// and names; not its selectors) for a reflector to start from: the state
// at from, then every change after it up to where the record ends (Until,
// which is also the state's resourceVersion when from is 0 or later). It
// fails with ErrNotRecorded for a resource never recorded, and as
// StateAt and Changes do (before the record, a gap). The state's objects
// are read from s when the reflector decodes them: s stays open until
// then.
func Recorded(ctx context.Context, s history.Record, res kube.Resource, scope kube.Scope, from uint64) (reflector.Recorded, error) {
	name := history.ResourceName(res)
	until, err := s.Latest(ctx, name)
	if err != nil {
		return reflector.Recorded{}, err
	}
	if from == 0 || from > until {
		from = until
	}
	var changes []history.Revision
	if from < until {
		if changes, err = s.Changes(ctx, name, from, until, 0); err != nil {
			return reflector.Recorded{}, fmt.Errorf("%s at resourceVersion %d: %w", res, from, err)
		}
	}
	cols, err := s.Columns(ctx, name)
	if err != nil {
		return reflector.Recorded{}, err
	}
	keep := func(r *history.Revision) bool {
		return (scope.Namespace == "" || r.Namespace == scope.Namespace) && (len(scope.Names) == 0 || slices.Contains(scope.Names, r.Name))
	}
	rec := reflector.Recorded{Columns: cols, ResourceVersion: strconv.FormatUint(from, 10), Until: strconv.FormatUint(until, 10),
		Objects: func(decode []object.DecodeFunc) ([]*object.Object, error) {
			objs, err := history.ObjectsAt(ctx, s, name, from, keep, decode)
			if err != nil {
				return nil, fmt.Errorf("%s at resourceVersion %d: %w", res, from, err)
			}
			return objs, nil
		}}
	for _, c := range changes {
		if keep(&c) {
			rec.Changes = append(rec.Changes, reflector.RecordedChange{JSON: c.Object, Cells: c.Cells,
				Deleted: c.Op == history.Deleted, ResourceVersion: strconv.FormatUint(c.RV, 10)})
		}
	}
	return rec, nil
}

// restored notes that res started from the history at rv: said with the
// others at start-up (announce), or at once after it (a kind added on
// demand).
func (r *Recording) restored(res kube.Resource, rv string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.announced {
		fmt.Fprintf(r.errOut, "Restored %s from the history at resourceVersion %s: resuming its watch\n", res, rv)
		return
	}
	if r.seeded == nil {
		r.seeded = map[kube.Resource]string{}
	}
	r.seeded[res] = rv
}

// Announce says, in one line and in the order given, which of resources
// started from the history and where: once their reflectors have synced.
// A daemon that records every kind (all) says how many did.
func (r *Recording) Announce(resources []kube.Resource, all *All) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.announced = true
	if all != nil {
		switch n := len(r.seeded); n {
		case 0:
		case 1:
			fmt.Fprintln(r.errOut, "Restored 1 kind from the history: resuming its watch")
		default:
			fmt.Fprintf(r.errOut, "Restored %d kinds from the history: resuming their watches\n", n)
		}
		return
	}
	var parts []string
	for _, res := range resources {
		if rv, ok := r.seeded[res]; ok {
			parts = append(parts, fmt.Sprintf("%s at resourceVersion %s", res, rv))
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(r.errOut, "Restored from the history: %s; resuming their watches\n", strings.Join(parts, ", "))
	}
}

// restorable says whether the record of res (of every namespace, whole
// objects) is the state of res in scope.
func restorable(res kube.Resource, scope kube.Scope) bool {
	return !history.IsSecrets(res) && scope.LabelSelector == "" && scope.FieldSelector == "" && len(scope.Names) == 0
}
