package timelineview

import (
	"context"
	"fmt"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-reflect/kubectl-reflect/internal/recordview"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/timeline"
)

// detailer writes what Enter shows of a mark: the revision's diff, as
// history --diff prints it, and the object at that moment, as get --at
// prints it (YAML).
type detailer struct {
	ctx context.Context
	Details
}

// Details is what the detail of a mark reads: each context's history,
// and the kinds as the server names them (by timeline.Kind.Resource).
type Details struct {
	Clusters  []timeline.Cluster
	Resources map[string]kube.Resource
}

// text is mk's detail on lane l (an error, said in it, when it cannot
// be read).
func (d *detailer) text(l *timeline.Lane, mk timeline.Mark) string {
	var b strings.Builder
	if err := d.write(&b, l, mk); err != nil {
		fmt.Fprintf(&b, "error: %v\n", err)
	}
	return b.String()
}

func (d *detailer) write(b *strings.Builder, l *timeline.Lane, mk timeline.Mark) error {
	s := d.store(l.Context)
	if s == nil {
		return fmt.Errorf("no history of context %q", l.Context)
	}
	kind := d.Resources[l.Kind.Resource]
	if mk.Event != nil {
		fmt.Fprintf(b, "Warning %s at %s: %s\n  %s\n\n", mk.Event.Reason, mk.Time.UTC().Format(time.RFC3339), mk.Event.Name, mk.Event.Message)
	} else {
		revs, err := s.Revisions(d.ctx, l.Kind.Resource, l.Namespace, l.Name)
		if err != nil {
			return err
		}
		for i, r := range revs {
			if r.RV != mk.RV {
				continue
			}
			var prev *history.Revision
			if i > 0 {
				prev = &revs[i-1]
			}
			b.WriteString("history --diff:\n")
			if err := recordview.RevisionDiff(b, kind, prev, r); err != nil {
				return err
			}
			b.WriteString("\n")
		}
	}
	return d.writeAt(b, s, l, mk)
}

// writeAt writes the object as it was at mk (its latest revision at or
// before mk's resourceVersion: resourceVersions are the cluster's).
func (d *detailer) writeAt(b *strings.Builder, s history.Record, l *timeline.Lane, mk timeline.Mark) error {
	at := mk.Time.UTC().Format(time.RFC3339)
	r, ok := s.(history.MarkReader)
	if !ok {
		return timeline.ErrNoMarkReader
	}
	rev, err := r.RevisionAt(d.ctx, l.Kind.Resource, l.Namespace, l.Name, mk.RV)
	if err != nil {
		return err
	}
	if rev.Op == history.Deleted {
		fmt.Fprintf(b, "get --at %s: %s %q deleted (resourceVersion %d)\n", at, l.Kind.Name, l.Name, rev.RV)
		return nil
	}
	obj, err := object.Decode(rev.Object, object.Prune{ManagedFields: true})
	if err != nil {
		return err
	}
	doc, err := yaml.JSONToYAML(obj.JSON())
	if err != nil {
		return err
	}
	fmt.Fprintf(b, "get --at %s (resourceVersion %d):\n%s", at, rev.RV, doc)
	return nil
}

// store is the history of context name.
func (d *detailer) store(name string) history.Record {
	for _, s := range d.Clusters {
		if s.Context == name {
			return s.Record
		}
	}
	return nil
}
