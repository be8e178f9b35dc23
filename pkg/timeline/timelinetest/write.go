package timelinetest

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
)

var resources = [...]string{Pods, Leases, Events}

// batchSize is how many revisions of a resource Write writes at once.
const batchSize = 500

// write writes the steps in order, each resource's in batches.
func (g *gen) write(ctx context.Context, s history.Record) (Stats, error) {
	stats := Stats{}
	for _, res := range resources {
		if _, err := s.Begin(ctx, res, 1); err != nil {
			return nil, err
		}
	}
	var batches [len(resources)][]history.Revision
	flush := func(i int, rv uint64) error {
		if len(batches[i]) == 0 {
			return nil
		}
		err := s.Write(ctx, resources[i], history.Batch{Revisions: batches[i], RV: rv})
		stats[resources[i]] += len(batches[i])
		batches[i] = batches[i][:0]
		return err
	}
	rv := uint64(1)
	for _, st := range g.steps {
		rv++
		batches[st.res] = append(batches[st.res], g.revision(st, rv))
		if len(batches[st.res]) == batchSize {
			if err := flush(int(st.res), rv); err != nil {
				return nil, err
			}
		}
	}
	for i := range resources {
		if err := flush(i, rv); err != nil {
			return nil, fmt.Errorf("%s: %w", resources[i], err)
		}
	}
	return stats, nil
}

// revision is the revision of step st at rv.
func (g *gen) revision(st step, rv uint64) history.Revision {
	at := g.c.Start.Add(time.Duration(st.at) * time.Millisecond)
	r := history.Revision{RV: rv, Time: at, Op: st.op}
	switch st.res {
	case 0:
		p := g.pods[st.obj]
		r.Namespace, r.Name = p.ns, p.name
		r.Object = podJSON(p.ns, p.name, p.node, rv, p.created, at, podStep(st.phase))
		if st.op == history.Modified {
			r.Manager = "kube-scheduler"
			if podStep(st.phase) != podScheduled {
				r.Manager = "kwok"
			}
		}
	case 1:
		node := fmt.Sprintf("node-%d", st.obj)
		r.Namespace, r.Name = "kube-node-lease", node
		r.Object = leaseJSON(node, rv, g.c.Start.Add(-72*time.Hour), at)
		if st.op == history.Modified {
			r.Manager = "kwok"
		}
	case 2:
		e := g.events[st.obj]
		r.Namespace, r.Name = e.ns, e.name
		r.Object = eventJSON(e.ns, e.name, e.pod, e.typ, e.reason, e.message, rv, e.first, at, int(st.phase))
		if st.op != history.Deleted {
			r.Manager = "kubelet"
		}
	}
	return r
}

// Record writes c's cluster into a new SQLite history at path, as Write
// does, and closes it.
func Record(ctx context.Context, path string, c Config) (Stats, error) {
	s, err := history.OpenSQLite(ctx, path, history.OpenOptions{})
	if err != nil {
		return nil, err
	}
	stats, err := Write(ctx, s, c)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	return stats, err
}

// Temp records c's cluster into a history in tb's temporary directory
// and opens it to read, as timeline does; it is closed when tb ends.
func Temp(tb testing.TB, c Config) history.Record {
	tb.Helper()
	ctx := context.Background()
	path := filepath.Join(tb.TempDir(), "history.db")
	if _, err := Record(ctx, path, c); err != nil {
		tb.Fatal(err)
	}
	s, err := history.OpenSQLite(ctx, path, history.OpenOptions{ReadOnly: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}
