package daemon

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

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
		r.mu.Lock()
		fmt.Fprintf(r.errOut, "warning: %s: not restored from the history (%v): listing\n", res, err)
		r.mu.Unlock()
		return reflector.Recorded{}, false
	}
	rec := reflector.Recorded{Columns: cols, ResourceVersion: fmt.Sprint(rv), Objects: recordedObjects(revs, scope.Namespace)}
	r.restored(res, rv)
	return rec, true
}

// restored notes that res started from the history at rv: said with the
// others at start-up (announce), or at once after it (a kind added on
// demand).
func (r *recording) restored(res kube.Resource, rv uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.announced {
		fmt.Fprintf(r.errOut, "Restored %s from the history at resourceVersion %d: resuming its watch\n", res, rv)
		return
	}
	if r.seeded == nil {
		r.seeded = map[kube.Resource]uint64{}
	}
	r.seeded[res] = rv
}

// announce says, in one line and in the order given, which of resources
// started from the history and where: once their reflectors have synced.
func (r *recording) announce(resources []kube.Resource) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.announced = true
	var parts []string
	for _, res := range resources {
		if rv, ok := r.seeded[res]; ok {
			parts = append(parts, fmt.Sprintf("%s at resourceVersion %d", res, rv))
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(r.errOut, "Restored from the history: %s; resuming their watches\n", strings.Join(parts, ", "))
	}
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
