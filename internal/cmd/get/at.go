package get

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/tidwall/gjson"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/cli"
	"github.com/kubectl-reflect/kubectl-reflect/internal/moment"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/daemon"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/history/recording"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/serve"
)

// atFlags are get's --at and --history-db: the state of a past moment,
// from the history serve --record wrote.
type atFlags struct {
	At string
	DB string
	// Strict fails where the state at a time is not known exactly (a
	// change seen late, dated within a window that holds the time),
	// rather than print it as before the change, with a warning.
	Strict bool
	// at is --at parsed; when is the time it names (AGE is printed at).
	at   moment.Moment
	when time.Time
}

// validateAt refuses what --at cannot read from a history.
func (o *GetOptions) validateAt() error {
	if o.atFlags.At == "" {
		switch {
		case o.atFlags.DB != "":
			return errors.New("--history-db is where --at reads: give --at too")
		case o.atFlags.Strict:
			return errors.New("--strict is about the state --at reads: give --at too")
		}
		return nil
	}
	switch {
	case o.raw.Path != "":
		return errors.New("--at reads recorded objects, --raw the API server: give one")
	case o.Watch || o.WatchOnly:
		return errors.New("--at prints a past state: it cannot watch (watch --since replays history)")
	case o.Subresource != "":
		return errors.New("--at reads recorded objects: it has no subresources")
	case o.FromFiles():
		return errors.New("--at reads resource arguments: give KIND or KIND/NAME, not -f")
	case o.contexts != nil:
		return errors.New("--at reads one cluster's history: give one --context")
	}
	var err error
	o.atFlags.at, err = moment.Parse("--at", o.atFlags.At, time.Now())
	return err
}

// readAt is read for --at: each target's objects at the moment asked,
// from the history, with their time cells as get printed them then. A
// kind the history holds nothing of is reported after the others are
// printed, as get reports a kind it cannot list.
func (o *GetOptions) readAt(ctx context.Context) ([]snapshot, error) {
	s, err := recording.OpenRecord(ctx, o.Config, o.atFlags.DB, daemon.HistoryOf)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	rv, when, err := o.moment(ctx, s)
	if err != nil {
		return nil, err
	}
	o.atFlags.when = when // what AGE is printed at
	match, err := o.selector()
	if err != nil {
		return nil, err
	}
	var snaps []snapshot
	for _, tg := range o.Targets {
		at, err := o.resolveAt(ctx, s, tg, rv)
		if err != nil && !errors.Is(err, history.ErrNotRecorded) {
			return nil, err
		}
		snap, err := o.targetAt(ctx, s, tg, at, when, match)
		if errors.Is(err, history.ErrNotRecorded) {
			snap = snapshot{res: tg.Resource, err: err}
		} else if err != nil {
			return nil, err
		}
		snaps = append(snaps, snap)
	}
	if !slices.ContainsFunc(snaps, func(s snapshot) bool { return s.err == nil }) {
		return nil, snaps[0].err // nothing to print: one line, as before
	}
	return snaps, nil
}

// moment is the resourceVersion and the time --at names.
func (o *GetOptions) moment(ctx context.Context, s history.Record) (uint64, time.Time, error) {
	return o.atFlags.at.In(ctx, s, "--at")
}

// resolveAt is the resourceVersion whose state of tg's kind is its state
// at the moment --at names (rv, that of any kind recorded by then, for a
// time), after a warning on stderr for each of tg's objects that changed
// at a time the history knows only within a window that holds it (or an
// error, --strict).
func (o *GetOptions) resolveAt(ctx context.Context, s history.Record, tg cli.Wanted, rv uint64) (uint64, error) {
	hm, err := o.atFlags.at.For(ctx, s, history.ResourceName(tg.Resource), rv)
	if err != nil {
		var gap *history.GapError
		if errors.As(err, &gap) {
			return 0, fmt.Errorf("%s at %s: %w", tg.Resource, o.atFlags.when.UTC().Format(time.RFC3339), err)
		}
		return rv, err
	}
	ns := tg.Namespace
	if !tg.Resource.Namespaced {
		ns = ""
	}
	keep := func(namespace, name string) bool {
		return (ns == "" || namespace == ns) && (len(tg.Names) == 0 || slices.Contains(tg.Names, name))
	}
	return hm.RV, moment.Uncertain(o.ErrOut, tg.Resource, o.atFlags.when, hm, keep, o.atFlags.Strict)
}

// targetAt is tg's snapshot at rv: its objects that match, decoded, each
// with its cells as printed at when, on every core.
func (o *GetOptions) targetAt(ctx context.Context, s history.Record, tg cli.Wanted, rv uint64, when time.Time, match func(*object.Object) bool) (snapshot, error) {
	res := history.ResourceName(tg.Resource)
	columns, err := columnsOf(ctx, s, res)
	if errors.Is(err, history.ErrNotRecorded) {
		return snapshot{}, history.NotRecordedError(tg.Resource, s.Location())
	}
	if err != nil {
		return snapshot{}, err
	}
	ns := tg.Namespace
	if !tg.Resource.Namespaced {
		ns = ""
	}
	objs, err := history.BuildAt(ctx, s, res, rv, history.InNamespace(ns), o.buildersAt(tg, columns, when, match))
	if err != nil {
		return snapshot{}, fmt.Errorf("%s at resourceVersion %d: %w", tg.Resource, rv, err)
	}
	return snapshot{res: tg.Resource, names: tg.Names, objs: pickNames(objs, tg.Names), columns: columns}, nil
}

// buildersAt build tg's objects at when, one builder per core: each
// object that matches, with its cells computed at when. A table of the
// server's columns that needs nothing else of them (no labels, no
// --sort-by) keeps only those cells and the objects' names, read where the
// history's buffers hold them, not each JSON decoded and copied.
func (o *GetOptions) buildersAt(tg cli.Wanted, columns []object.Column, when time.Time, match func(*object.Object) bool) []func(*history.Revision) (*object.Object, error) {
	cellsAt := serve.CellsAt(tg.Resource.GVR.GroupResource(), columns, when)
	if columns != nil && o.serverColumns() && o.sortBy() == "" && !o.labelColumns() {
		lean := func(r *history.Revision) (*object.Object, error) {
			v := object.View(r.Namespace, r.Name, r.Object, r.Cells)
			if !match(v) {
				return nil, nil
			}
			if v.Cells == nil {
				return v.Lean(nil), nil
			}
			return v.Lean(cellsAt(v)), nil
		}
		return slices.Repeat([]func(*history.Revision) (*object.Object, error){lean}, runtime.GOMAXPROCS(0))
	}
	// Printed objects lose their managedFields, as get's do.
	prune := object.Prune{ManagedFields: !o.humanReadable() && !o.PrintFlags.JSONYamlPrintFlags.ShowManagedFields}
	decode := history.Decoders(object.NewDecoder(object.DecoderOptions{Prune: prune}))
	build := make([]func(*history.Revision) (*object.Object, error), len(decode))
	for i, d := range decode {
		build[i] = func(r *history.Revision) (*object.Object, error) {
			obj, err := d(r.Object, r.Cells)
			if err != nil || !match(obj) {
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

// selector is -l and --field-selector as a test of a recorded object:
// labels as the API server selects them, fields on metadata.name and
// metadata.namespace (the history does not know each kind's other field
// labels).
func (o *GetOptions) selector() (func(*object.Object) bool, error) {
	ls, err := labels.Parse(o.LabelSelector)
	if err != nil {
		return nil, fmt.Errorf("invalid label selector %q: %w", o.LabelSelector, err)
	}
	fs, err := fields.ParseSelector(o.FieldSelector)
	if err != nil {
		return nil, fmt.Errorf("invalid field selector %q: %w", o.FieldSelector, err)
	}
	for _, req := range fs.Requirements() {
		if req.Field != "metadata.name" && req.Field != "metadata.namespace" {
			return nil, fmt.Errorf("--at selects fields metadata.name and metadata.namespace only, not %q", req.Field)
		}
	}
	return func(obj *object.Object) bool {
		if !fs.Empty() && !fs.Matches(fields.Set{"metadata.name": obj.Name, "metadata.namespace": obj.Namespace}) {
			return false
		}
		if ls.Empty() {
			return true
		}
		set := labels.Set{}
		gjson.GetBytes(obj.JSON(), "metadata.labels").ForEach(func(k, v gjson.Result) bool {
			set[k.Str] = v.Str
			return true
		})
		return ls.Matches(set)
	}, nil
}
