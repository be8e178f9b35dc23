package blametest

import (
	"context"
	"fmt"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
)

// What a record holds, and what a benchmark blames in it.
const (
	Resource  = "deployments.v1.apps"                    // the recorded resource
	Namespace = "default"                                // every Deployment's namespace
	Field     = "spec.template.spec.containers[0].image" // a field kubectl-edit changes every third revision
	PerObject = 100                                      // revisions of each Deployment
)

// batchSize is how many revisions Record writes in one transaction.
const batchSize = 2000

// Name is the name of Deployment i.
func Name(i int) string { return fmt.Sprintf("web-%05d", i) }

// Record writes a new SQLite history at path holding revisions revisions
// (rounded down to PerObject's multiple): PerObject of each of
// revisions/PerObject Deployments, one revision of each in turn, a minute
// apart from 2026-12-06T00:00:00Z, the first of each a creation by
// kubectl-client-side-apply. Its record of the resource begins at
// resourceVersion 1 and ends checkpointed, as a stopped recorder leaves it.
func Record(ctx context.Context, path string, revisions int) error {
	s, err := history.OpenSQLite(ctx, path, history.OpenOptions{})
	if err != nil {
		return err
	}
	defer s.Close()
	if _, err := s.Begin(ctx, Resource, 1); err != nil {
		return err
	}
	objects := revisions / PerObject
	last := make([][]byte, objects)
	rv := uint64(1)
	batch := history.Batch{}
	t := time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)
	for step := range PerObject {
		for i := range objects {
			rv++
			doc := deployment(i, rv, step, t)
			batch.Revisions = append(batch.Revisions, revision(i, rv, step, t, doc, last[i]))
			last[i] = doc
			if len(batch.Revisions) == batchSize {
				if batch, err = write(ctx, s, batch, rv); err != nil {
					return err
				}
			}
		}
		t = t.Add(time.Minute)
	}
	if len(batch.Revisions) > 0 {
		if _, err := write(ctx, s, batch, rv); err != nil {
			return err
		}
	}
	return s.Checkpoint(ctx, Resource)
}

// revision is Deployment i's revision at step, doc its object, before
// the one it replaces.
func revision(i int, rv uint64, step int, t time.Time, doc, before []byte) history.Revision {
	op, manager := history.Modified, []string{"kubectl", "kubectl-edit", "kube-controller-manager"}[step%3]
	if step == 0 {
		op, manager = history.Added, "kubectl-client-side-apply"
	}
	return history.Revision{Namespace: Namespace, Name: Name(i), RV: rv, Time: t, Op: op, Manager: manager, Object: doc, Before: before}
}

// write writes batch as of rv and returns a new, empty one.
func write(ctx context.Context, s *history.SQLite, batch history.Batch, rv uint64) (history.Batch, error) {
	batch.RV = rv
	return history.Batch{}, s.Write(ctx, Resource, batch)
}
