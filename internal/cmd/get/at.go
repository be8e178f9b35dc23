package get

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/cli"
	"github.com/kubectl-reflect/kubectl-reflect/internal/moment"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/daemon"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/history/recording"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
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
	match, err := moment.Selector("--at", o.LabelSelector, o.FieldSelector)
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
	objs, columns, err := moment.State(ctx, s, moment.Objects{
		Resource: tg.Resource, Namespace: tg.Namespace, Names: tg.Names, Match: match, When: when,
		Lean: o.serverColumns() && o.sortBy() == "" && !o.labelColumns(),
		// Printed objects lose their managedFields, as get's do.
		PruneManagedFields: !o.humanReadable() && !o.PrintFlags.JSONYamlPrintFlags.ShowManagedFields,
	}, rv)
	if err != nil {
		return snapshot{}, err
	}
	return snapshot{res: tg.Resource, names: tg.Names, objs: objs, columns: columns}, nil
}
