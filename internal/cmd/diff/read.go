package diff

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/cli"
	"github.com/kubectl-reflect/kubectl-reflect/internal/contexts"
	"github.com/kubectl-reflect/kubectl-reflect/internal/moment"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/daemon"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/history/recording"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
)

// source is one context diff reads: its flags, the kind and names its
// arguments resolve to there, and its history once opened.
type source struct {
	cli.Target
	context string    // "" when diff reads one context
	errOut  io.Writer // its warnings, after "context NAME: " when several
	history history.Record
}

// resolve resolves the arguments to one kind, through the context's
// discovery.
func (s *source) resolve() error {
	if err := s.Resolve(); err != nil {
		return err
	}
	if len(s.Targets) != 1 {
		return errors.New("diff compares one kind: give KIND, KIND/NAME or KIND NAME...")
	}
	return nil
}

// wanted is what s reads: the one kind and its names, if any.
func (s *source) wanted() cli.Wanted { return s.Targets[0] }

// namespace is where s reads the kind: its namespace, "" for every one or
// for a cluster-scoped kind.
func (s *source) namespace() string {
	if tg := s.wanted(); tg.Resource.Namespaced {
		return tg.Namespace
	}
	return ""
}

// wrap names s's context in err, when diff reads several.
func (s *source) wrap(err error) error {
	if s.context == "" {
		return err
	}
	return contexts.Wrap(s.context, err)
}

// readNow is what the kind's reflector lists now (the API server's, or a
// daemon's of the same identity): the named objects, or every one that
// -l selects.
func (s *source) readNow(ctx context.Context) ([]*object.Object, error) {
	report := cli.NewReporter(s.errOut, false)
	opts := s.OneShotOptions()
	read := kube.Shape{Prune: object.Prune{ManagedFields: true}}
	handles, release, err := s.Acquire(reflector.SetOptions{Watch: &opts, Hooks: report.Hooks(false)}, read)
	if err != nil {
		return nil, err
	}
	defer release()
	if err := reflector.WaitForSync(ctx, handles...); err != nil {
		if ctx.Err() != nil {
			return nil, cli.ErrInterrupted
		}
		return nil, err
	}
	return handles[0].List(), nil
}

// openHistory opens s's history (--history-db, else the one its daemon
// records to or the default of its cluster and user).
func (s *source) openHistory(ctx context.Context, db string) error {
	if s.history != nil {
		return nil
	}
	h, err := recording.OpenRecord(ctx, s.Config, db, daemon.HistoryOf)
	if err != nil {
		return err
	}
	s.history = h
	return nil
}

// readAt is the kind's objects at moment m in s's history, those named or
// that -l selects, after a warning for each that may or may not have
// changed by then (seen late, after a restart), and the label of the
// moment.
func (s *source) readAt(ctx context.Context, m moment.Moment) ([]*object.Object, error) {
	tg := s.wanted()
	rv, when, err := m.In(ctx, s.history, "--at")
	if err != nil {
		return nil, err
	}
	res := history.ResourceName(tg.Resource)
	hm, err := m.For(ctx, s.history, res, rv)
	if errors.Is(err, history.ErrNotRecorded) {
		return nil, history.NotRecordedError(tg.Resource, s.history.Location())
	}
	if err != nil {
		return nil, fmt.Errorf("%s at %s: %w", tg.Resource, momentLabel(m), err)
	}
	ns := s.namespace()
	keep := func(namespace, name string) bool {
		return (ns == "" || namespace == ns) && (len(tg.Names) == 0 || slices.Contains(tg.Names, name))
	}
	if err := moment.Uncertain(s.errOut, tg.Resource, when, hm, keep, false); err != nil {
		return nil, err
	}
	decode := history.Decoders(object.NewDecoder(object.DecoderOptions{Prune: object.Prune{ManagedFields: true}}))
	objs, err := history.ObjectsAt(ctx, s.history, res, hm.RV, func(r *history.Revision) bool { return keep(r.Namespace, r.Name) }, decode)
	if errors.Is(err, history.ErrNotRecorded) {
		return nil, history.NotRecordedError(tg.Resource, s.history.Location())
	}
	if err != nil {
		return nil, fmt.Errorf("%s at %s: %w", tg.Resource, momentLabel(m), err)
	}
	sel, err := labels.Parse(s.LabelSelector)
	if err != nil {
		return nil, fmt.Errorf("invalid label selector %q: %w", s.LabelSelector, err)
	}
	return slices.DeleteFunc(objs, func(o *object.Object) bool { return !object.MatchLabels(sel)(o) }), nil
}

// recorded says whether s's history holds any revision of the object
// name of its kind.
func (s *source) recorded(ctx context.Context, name string) (bool, error) {
	revs, err := s.history.Revisions(ctx, history.ResourceName(s.wanted().Resource), s.namespace(), name)
	if errors.Is(err, history.ErrNotRecorded) {
		return false, nil
	}
	return len(revs) > 0, err
}
