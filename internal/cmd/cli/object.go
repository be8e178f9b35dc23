package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/daemon"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/history/recording"
)

// ResolveOne is Resolve for a command about one object's history
// (history, blame): the arguments must name one object; what says what
// the command does with it, in the error ("history lists").
func (t *Target) ResolveOne(what string) error {
	if err := t.Resolve(); err != nil {
		return err
	}
	if len(t.Targets) != 1 || len(t.Targets[0].Names) != 1 {
		return NotOneObject(what)
	}
	return nil
}

// NotOneObject is ResolveOne's error for arguments that name no object,
// or several; what as ResolveOne's.
func NotOneObject(what string) error {
	return fmt.Errorf("%s one object: give KIND/NAME (or KIND NAME)", what)
}

// ObjectHistory is the one object ResolveOne resolved, as its history
// knows it: the history (db, "" for the kubeconfig's), which the caller
// closes, the object's namespace ("" for a cluster-scoped kind) and its
// revisions, oldest first. A kind the history holds nothing of, or an
// object it has no revision of, is an error.
type ObjectHistory struct {
	Record    history.Record
	Wanted    Wanted
	Namespace string
	Name      string
	Revisions []history.Revision
}

// ReadObject opens the history at db and reads the revisions of the one
// object ResolveOne resolved.
func (t *Target) ReadObject(ctx context.Context, db string) (*ObjectHistory, error) {
	s, err := recording.OpenRecord(ctx, t.Config, db, daemon.HistoryOf)
	if err != nil {
		return nil, err
	}
	tg := t.Targets[0]
	o := &ObjectHistory{Record: s, Wanted: tg, Namespace: tg.Namespace, Name: tg.Names[0]}
	if !tg.Resource.Namespaced {
		o.Namespace = ""
	}
	o.Revisions, err = s.Revisions(ctx, history.ResourceName(tg.Resource), o.Namespace, o.Name)
	switch {
	case errors.Is(err, history.ErrNotRecorded):
		err = history.NotRecordedError(tg.Resource, s.Location())
	case err == nil && len(o.Revisions) == 0:
		err = fmt.Errorf("%s %q: no revision recorded", tg.Resource.GVR.GroupResource(), o.Name)
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	return o, nil
}
