package watch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/spf13/pflag"

	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/cli"
	"github.com/kubectl-reflect/kubectl-reflect/internal/moment"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/daemon"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/history/recording"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// sinceFlags are watch's --since and --history-db: a replay from the
// history serve --record wrote, continued live.
type sinceFlags struct {
	Since  string
	DB     string
	Strict bool
	since  moment.Moment
}

func (f *sinceFlags) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.Since, "since", "", "Replay from the history (serve --record) since a time (RFC 3339), a duration ago (90m) or a resourceVersion, then go on live")
	fs.BoolVar(&f.Strict, "strict", false, "With --since: fail where the state at the time is not known exactly (a change made while nothing recorded, dated by the server only within a window), rather than replay that change as after it with a warning")
	fs.StringVar(&f.DB, "history-db", "", "The history --since reads, a file or a postgres:// URL (default: the running daemon's, else the default of the cluster and user)")
}

// validateSince refuses what --since cannot replay.
func (o *WatchOptions) validateSince() error {
	if o.Since == "" {
		switch {
		case o.sinceFlags.DB != "":
			return errors.New("--history-db is where --since reads: give --since too")
		case o.sinceFlags.Strict:
			return errors.New("--strict is about the state --since replays from: give --since too")
		}
		return nil
	}
	switch {
	case o.contexts != nil:
		return errors.New("--since replays one cluster's history: give one --context")
	case o.FromFiles():
		return errors.New("--since reads resource arguments: give KIND or KIND/NAME, not -f")
	case o.Target.Selects():
		return errors.New("--since replays kinds, in a namespace or by name: it cannot select by labels or fields")
	}
	var err error
	o.since, err = moment.Parse("--since", o.Since, time.Now())
	return err
}

// replay is, for --since, what each kind's reflector starts from: its
// state at the moment named, then every change the history holds since,
// after which it resumes watching where the record ends (no gap, no
// duplicate at the seam; a 410 there relists, and the stream shows what
// the list found changed). nil without --since. The history stays open
// until close is called (the reflectors read the states as they start).
func (o *WatchOptions) replay(ctx context.Context) (_ *replaySet, close func(), err error) {
	if o.Since == "" {
		return nil, func() {}, nil
	}
	s, err := recording.OpenRecord(ctx, o.Config, o.sinceFlags.DB, daemon.HistoryOf)
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	from, _, err := o.since.In(ctx, s, "--since")
	if err != nil {
		return nil, nil, err
	}
	set := &replaySet{recorded: map[string]reflector.Recorded{}}
	for _, src := range o.Feeds {
		at, err := o.sinceFor(ctx, s, src, from)
		if err != nil {
			return nil, nil, err
		}
		rec, err := recording.Recorded(ctx, s, src.Resource, kube.Scope{Namespace: src.Namespace, Names: o.NamesOf(src)}, at)
		if errors.Is(err, history.ErrNotRecorded) {
			return nil, nil, history.NotRecordedError(src.Resource, s.Location())
		}
		if err != nil {
			return nil, nil, err
		}
		set.recorded[seedKey(src.Resource, o.Scope(src, o.read()))] = rec
	}
	return set, func() { s.Close() }, nil
}

// sinceFor is the resourceVersion src's replay starts from, given from,
// the one --since names of any kind: for a time, src's objects that
// changed at a time the history knows only within a window that holds it
// are said on stderr (their change is replayed after the state), or fail
// with --strict.
func (o *WatchOptions) sinceFor(ctx context.Context, s history.Record, src cli.Feed, from uint64) (uint64, error) {
	hm, err := o.since.For(ctx, s, history.ResourceName(src.Resource), from)
	if errors.Is(err, history.ErrNotRecorded) {
		return from, nil // said by Recorded, in its words
	}
	var gap *history.GapError
	if errors.As(err, &gap) {
		return 0, fmt.Errorf("%s since %s: %w", src.Resource, o.since.When.UTC().Format(time.RFC3339), err)
	}
	if err != nil {
		return 0, err
	}
	names := o.NamesOf(src)
	keep := func(namespace, name string) bool {
		return (src.Namespace == "" || namespace == src.Namespace) && (len(names) == 0 || slices.Contains(names, name))
	}
	return hm.RV, moment.Uncertain(o.ErrOut, src.Resource, o.since.When, hm, keep, o.sinceFlags.Strict)
}

// replaySet is what --since replays of each kind in its scope.
type replaySet struct {
	recorded map[string]reflector.Recorded // by seedKey
}

// Seed is the reflectors' seeder; a nil set seeds none.
func (rs *replaySet) Seed() reflector.Seeder {
	if rs == nil {
		return nil
	}
	return func(_ context.Context, res kube.Resource, scope kube.Scope) (reflector.Recorded, bool) {
		rec, ok := rs.recorded[seedKey(res, scope)]
		return rec, ok
	}
}

// Seam is the resourceVersion of the last change replayed of res in
// scope (flatten.Stream.Replay), 0 when none is.
func (rs *replaySet) Seam(res kube.Resource, scope kube.Scope) uint64 {
	changes := rs.recorded[seedKey(res, scope)].Changes
	if len(changes) == 0 {
		return 0
	}
	rv, _ := store.ParseRV(changes[len(changes)-1].ResourceVersion)
	return rv
}

// seedKey names a reflector's resource and scope (which objects).
func seedKey(res kube.Resource, scope kube.Scope) string {
	return fmt.Sprint(res, "|", scope.Namespace, "|", scope.FieldSelector, "|", scope.Names)
}
