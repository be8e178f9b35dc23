package watch

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/cli"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/daemon"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// sinceFlags are watch's --since and --history-db: a replay from the
// history serve --record wrote, continued live.
type sinceFlags struct {
	Since string
	DB    string
	since cli.Moment
}

func (f *sinceFlags) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.Since, "since", "", "Replay from the history (serve --record) since a time (RFC 3339), a duration ago (90m) or a resourceVersion, then go on live")
	fs.StringVar(&f.DB, "history-db", "", "The history --since reads, a file or a postgres:// URL (default: the running daemon's, else the default of the cluster and user)")
}

// validateSince refuses what --since cannot replay.
func (o *WatchOptions) validateSince() error {
	if o.Since == "" {
		if o.sinceFlags.DB != "" {
			return errors.New("--history-db is where --since reads: give --since too")
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
	o.since, err = cli.ParseMoment("--since", o.Since, time.Now())
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
	s, err := daemon.OpenHistory(ctx, o.Config, o.sinceFlags.DB)
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
	for _, src := range o.Sources {
		rec, err := daemon.Recorded(ctx, s, src.Resource, kube.Scope{Namespace: src.Namespace, Names: o.NamesOf(src)}, from)
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
