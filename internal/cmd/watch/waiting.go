package watch

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/cli"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/flatten"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// noteMissing says once on stderr which of names src's first list did not
// find, and that watch waits for them to be created. kubectl's `get -w`
// fails with NotFound there; waiting is more useful, but not silently.
func noteMissing(ctx context.Context, src flatten.Source, names []string, namespace string, report *cli.Reporter) {
	select {
	case <-src.Synced():
	case <-ctx.Done():
		return
	}
	res := src.Resource()
	where := " in namespace " + namespace
	if !res.Namespaced || namespace == "" {
		namespace, where = "", ""
	}
	for _, name := range names {
		if _, ok := src.Get(store.Key{Namespace: namespace, Name: name}); !ok {
			err := apierrors.NewNotFound(res.GVR.GroupResource(), name)
			report.Line("", "%v%s; waiting for it to be created", err, where)
		}
	}
}
