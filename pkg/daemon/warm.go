package daemon

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// seeder makes a recording daemon restart warm (reflector.SetOptions.Seed):
// each reflector starts from what the history holds of its resource and
// resumes the watch where the record ends. nil when not recording.
func (r *recording) seeder() reflector.Seeder {
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
func (r *recording) seed(ctx context.Context, res kube.Resource, scope kube.Scope) (reflector.Recorded, bool) {
	if !restorable(res, scope) {
		return reflector.Recorded{}, false
	}
	name := history.ResourceName(res)
	rv, err := r.store.Latest(ctx, name)
	if errors.Is(err, history.ErrNotRecorded) {
		return reflector.Recorded{}, false
	}
	var (
		revs []history.Revision
		cols []byte
	)
	if err == nil {
		revs, err = r.store.StateAt(ctx, name, rv)
	}
	if err == nil {
		cols, err = r.store.Columns(ctx, name)
	}
	if err != nil {
		r.say("warning: %s: not restored from the history (%v): listing\n", res, err)
		return reflector.Recorded{}, false
	}
	rec := reflector.Recorded{Columns: cols, ResourceVersion: fmt.Sprint(rv), Objects: recordedObjects(revs, scope.Namespace)}
	r.say("Restored %d %s from the history at resourceVersion %d: resuming the watch\n", len(rec.Objects), res, rv)
	return rec, true
}

// restorable says whether the record of res (of every namespace, whole
// objects) is the state of res in scope.
func restorable(res kube.Resource, scope kube.Scope) bool {
	secrets := res.GVR.Group == "" && res.GVR.Resource == "secrets"
	return !secrets && scope.LabelSelector == "" && scope.FieldSelector == "" && len(scope.Names) == 0
}

// recordedObjects are the revisions of namespace (all when "") in the API
// server's order, as a LIST of it brings them.
func recordedObjects(revs []history.Revision, namespace string) []reflector.RecordedObject {
	if namespace != "" {
		revs = slices.DeleteFunc(revs, func(r history.Revision) bool { return r.Namespace != namespace })
	}
	slices.SortFunc(revs, func(a, b history.Revision) int {
		return store.CompareKeys(store.Key{Namespace: a.Namespace, Name: a.Name}, store.Key{Namespace: b.Namespace, Name: b.Name})
	})
	out := make([]reflector.RecordedObject, len(revs))
	for i, r := range revs {
		out[i] = reflector.RecordedObject{JSON: r.Object, Cells: r.Cells}
	}
	return out
}

// say writes one line to the daemon's ErrOut; reflectors start at once.
func (r *recording) say(format string, args ...any) {
	r.sayMu.Lock()
	defer r.sayMu.Unlock()
	fmt.Fprintf(r.errOut, format, args...)
}
