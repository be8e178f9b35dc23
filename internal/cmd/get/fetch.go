package get

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/cli"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// byName says whether get reads tg's objects one by one, with a GET each,
// after its list failed with err. kubectl get reads named objects so, and
// a user may be allowed to read them but not to list them (RBAC's get
// without list): get then prints what kubectl prints, the objects or each
// GET's error. Not with a selector, which a GET does not apply.
func (o *GetOptions) byName(tg cli.Wanted, err error) bool {
	return len(tg.Names) > 0 && !o.Selects() &&
		(apierrors.IsForbidden(err) || apierrors.IsMethodNotSupported(err))
}

// fetch reads tg's objects (their --subresource, if given) with a GET
// each, at the API server, as kubectl get does: a snapshot per name in the
// order given, holding the object or the GET's error (a NotFound too: the
// server's words, which missing leaves out under --ignore-not-found).
func (o *GetOptions) fetch(ctx context.Context, tg cli.Wanted, read kube.Shape) []snapshot {
	rc, err := kube.NewRESTClient(o.Config)
	if err != nil {
		return []snapshot{{res: tg.Resource, err: err}}
	}
	client := kube.NewClient(rc, tg.Resource, o.Scope(tg.Feed(), read))
	snaps := make([]snapshot, 0, len(tg.Names))
	for _, name := range tg.Names {
		s := snapshot{res: tg.Resource, names: []string{name}}
		if name == "" {
			snaps = append(snaps, s) // missing reports it
			continue
		}
		if obj, err := client.Get(ctx, name, o.Subresource); err != nil {
			s = snapshot{res: tg.Resource, err: err}
		} else {
			s.objs, s.columns = []*object.Object{obj}, client.Columns()
		}
		snaps = append(snaps, s)
	}
	return snaps
}
