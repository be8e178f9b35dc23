package recordview

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"time"

	"k8s.io/cli-runtime/pkg/printers"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/output"
)

// History prints the revisions of one object, as the history verb does:
// W the output, Kind the object's. Context, when history reads several
// contexts, is the one the revisions are of: Diffs's header lines start
// with "CONTEXT: ", as diff --context a,b names its sides.
type History struct {
	W       io.Writer
	Kind    kube.Resource
	Context string
}

var historyHeaders = []string{"REVISION", "TIME", "OPERATION", "MANAGER"}

// Table prints one row per revision: MANAGER is who made its change,
// <none> when that is not known (a deletion, an INITIAL revision: the
// object as the recorder first found it).
func (p History) Table(revs []history.Revision) error {
	rows := make([][]string, len(revs))
	for i, r := range revs {
		rows[i] = historyRow(r)
	}
	return output.PlainTable(p.W, historyHeaders, rows)
}

// ContextRevisions are one context's revisions of an object.
type ContextRevisions struct {
	Context   string
	Revisions []history.Revision
}

// ContextsTable prints the revisions of several contexts as one table,
// Table's with a CONTEXT column first (as get --context a,b prints), the
// contexts in the order given, each one's revisions oldest first.
func ContextsTable(w io.Writer, ctxs []ContextRevisions) error {
	var rows [][]string
	for _, c := range ctxs {
		for _, r := range c.Revisions {
			rows = append(rows, append([]string{c.Context}, historyRow(r)...))
		}
	}
	return output.PlainTable(w, append([]string{"CONTEXT"}, historyHeaders...), rows)
}

// historyRow is r's row of Table.
func historyRow(r history.Revision) []string {
	manager := r.Manager
	if manager == "" || r.Op == history.Deleted {
		manager = "<none>"
	}
	return []string{strconv.FormatUint(r.RV, 10), When(r), r.Op.String(), manager}
}

// When is when r happened, to the second: its time, or for a change seen
// late (Revision.Since) the second it happened in, when the window is
// within one, else the window as an ISO 8601 interval
// (2026-12-06T00:04:20Z/00:04:54Z: the end's date left out when the
// same).
func When(r history.Revision) string {
	end := r.Time.UTC()
	if r.Since.IsZero() {
		return end.Format(time.RFC3339)
	}
	start := r.Since.UTC()
	last := end.Add(-time.Nanosecond) // the window ends at Time, not after it
	if start.Truncate(time.Second).Equal(last.Truncate(time.Second)) {
		return start.Format(time.RFC3339)
	}
	if start.Format(time.DateOnly) == end.Format(time.DateOnly) {
		return start.Format(time.RFC3339) + "/" + end.Format("15:04:05Z")
	}
	return start.Format(time.RFC3339) + "/" + end.Format(time.RFC3339)
}

// Diffs prints each revision as a header line, then the YAML of the first
// one and of each that starts the object's life as recorded (ADDED,
// INITIAL), and every other one's diff against the one before (nothing
// for a deletion, or when only noise changed).
func (p History) Diffs(revs []history.Revision) error {
	w := bufio.NewWriter(p.W)
	var prev *object.Object
	for _, r := range revs {
		obj, err := p.entry(w, r, prev)
		if err != nil {
			return err
		}
		prev = obj
	}
	return w.Flush()
}

// entry prints one revision as Diffs does, prev the object of the one
// before (nil: none), and returns its object.
func (p History) entry(w *bufio.Writer, r history.Revision, prev *object.Object) (*object.Object, error) {
	obj, err := object.Decode(r.Object, object.Prune{})
	if err != nil {
		return nil, err
	}
	if p.Context != "" {
		fmt.Fprintf(w, "%s: ", p.Context)
	}
	fmt.Fprintf(w, "%s %s/%s (resourceVersion %d) at %s", r.Op, p.Kind.GVR.GroupResource(), r.Name, r.RV, When(r))
	if r.Manager != "" && r.Op != history.Deleted {
		fmt.Fprintf(w, " by %s", r.Manager)
	}
	w.WriteString("\n")
	switch {
	case r.Op == history.Deleted:
	case prev == nil || r.Op.Appeared():
		doc, err := output.QuietYAML(obj)
		if err != nil {
			return nil, err
		}
		w.WriteString(doc)
	default:
		diff, err := output.UnifiedDiff(prev, obj)
		if err != nil {
			return nil, err
		}
		w.WriteString(diff)
	}
	return obj, nil
}

// RevisionDiff prints revision r of an object of kind as history --diff
// prints it: its header line, then its diff against prev (the revision
// before it, nil when none), or its YAML when it starts the object's
// life as recorded, nothing for a deletion.
func RevisionDiff(out io.Writer, kind kube.Resource, prev *history.Revision, r history.Revision) error {
	p := History{W: out, Kind: kind}
	var before *object.Object
	if prev != nil {
		var err error
		if before, err = object.Decode(prev.Object, object.Prune{}); err != nil {
			return err
		}
	}
	w := bufio.NewWriter(out)
	if _, err := p.entry(w, r, before); err != nil {
		return err
	}
	return w.Flush()
}

// Revision prints the object of the revision at rv, as YAML or as JSON
// (kubectl's JSON printer: what get -o json prints of one object).
func (p History) Revision(revs []history.Revision, rv uint64, asJSON bool) error {
	for _, r := range revs {
		if r.RV != rv {
			continue
		}
		obj, err := object.Decode(r.Object, object.Prune{ManagedFields: true})
		if err != nil {
			return err
		}
		if asJSON {
			u, err := obj.Unstructured()
			if err != nil {
				return err
			}
			return (&printers.JSONPrinter{}).PrintObj(u, p.W)
		}
		doc, err := yaml.JSONToYAML(obj.JSON())
		if err != nil {
			return fmt.Errorf("converting %s to YAML: %w", r.Name, err)
		}
		_, err = p.W.Write(doc)
		return err
	}
	return fmt.Errorf("%s %q has no revision at resourceVersion %d (the REVISION column lists them)", p.Kind.GVR.GroupResource(), revs[0].Name, rv)
}
