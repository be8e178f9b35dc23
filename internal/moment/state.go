package moment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/serve"
)

// Objects is what a verb reads of one kind's recorded objects at a
// moment (get --at).
type Objects struct {
	Resource  kube.Resource
	Namespace string   // "" for every namespace; ignored for a cluster-scoped kind
	Names     []string // these objects, in this order; none: every object
	// Match keeps the objects it says yes to (Selector).
	Match func(*object.Object) bool
	// When is the time the objects' time cells (AGE) are computed at.
	When time.Time
	// Lean keeps of a table only the server's columns' cells and the
	// objects' names, read where the history's buffers hold them, rather
	// than each object decoded and copied: for a table that needs nothing
	// else of them (no labels, no --sort-by).
	Lean bool
	// PruneManagedFields drops the objects' managedFields as they are
	// decoded (an object get prints leaves them out).
	PruneManagedFields bool
}

// State is q's objects at rv, decoded on every core, and the kind's
// recorded Table columns (nil if none were recorded). A kind the history
// holds nothing of is history.NotRecordedError.
func State(ctx context.Context, s history.Record, q Objects, rv uint64) ([]*object.Object, []object.Column, error) {
	res := history.ResourceName(q.Resource)
	columns, err := columnsOf(ctx, s, res)
	if errors.Is(err, history.ErrNotRecorded) {
		return nil, nil, history.NotRecordedError(q.Resource, s.Location())
	}
	if err != nil {
		return nil, nil, err
	}
	ns := q.Namespace
	if !q.Resource.Namespaced {
		ns = ""
	}
	objs, err := history.BuildAt(ctx, s, res, rv, history.InNamespace(ns), q.builders(columns))
	if err != nil {
		return nil, nil, fmt.Errorf("%s at resourceVersion %d: %w", q.Resource, rv, err)
	}
	return pickNames(objs, q.Names), columns, nil
}

// builders build q's objects, one builder per core: each object that
// matches, with its cells computed at q.When.
func (q Objects) builders(columns []object.Column) []func(*history.Revision) (*object.Object, error) {
	cellsAt := serve.CellsAt(q.Resource.GVR.GroupResource(), columns, q.When)
	if columns != nil && q.Lean {
		lean := func(r *history.Revision) (*object.Object, error) {
			v := object.View(r.Namespace, r.Name, r.Object, r.Cells)
			if !q.Match(v) {
				return nil, nil
			}
			if v.Cells == nil {
				return v.Lean(nil), nil
			}
			return v.Lean(cellsAt(v)), nil
		}
		return slices.Repeat([]func(*history.Revision) (*object.Object, error){lean}, runtime.GOMAXPROCS(0))
	}
	decode := history.Decoders(object.NewDecoder(object.DecoderOptions{Prune: object.Prune{ManagedFields: q.PruneManagedFields}}))
	build := make([]func(*history.Revision) (*object.Object, error), len(decode))
	for i, d := range decode {
		build[i] = func(r *history.Revision) (*object.Object, error) {
			obj, err := d(r.Object, r.Cells)
			if err != nil || !q.Match(obj) {
				return nil, err
			}
			if obj.Cells != nil && columns != nil {
				obj.Cells = cellsAt(obj)
			}
			return obj, nil
		}
	}
	return build
}

// columnsOf reads res's recorded Table columns.
func columnsOf(ctx context.Context, s history.Record, res string) ([]object.Column, error) {
	raw, err := s.Columns(ctx, res)
	if err != nil || raw == nil {
		return nil, err
	}
	var cols []object.Column
	if err := json.Unmarshal(raw, &cols); err != nil {
		return nil, fmt.Errorf("reading the columns of %s: %w", res, err)
	}
	return cols, nil
}

// pickNames is objs' objects of names, in the order given, or objs.
func pickNames(objs []*object.Object, names []string) []*object.Object {
	if len(names) == 0 {
		return objs
	}
	var out []*object.Object
	for _, name := range names {
		for _, obj := range objs {
			if obj.Name == name {
				out = append(out, obj)
			}
		}
	}
	return out
}
