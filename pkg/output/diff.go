package output

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
	"github.com/tidwall/sjson"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// noisePaths are left out of diffs: they change with every write (or with
// any spec change) and say nothing a reader of the diff wants to see.
var noisePaths = []string{
	"metadata.resourceVersion",
	"metadata.managedFields",
	"metadata.generation",
	"status.observedGeneration",
}

// diffPrinter prints `watch --diff`. An object the stream has not carried
// before (Event.Old nil: created, listed at start, found by a relist) is
// one line, the header then its kind's printer columns as Name=value pairs
// (the COLUMNS of the several-kinds table), and with full (--diff-new) its
// YAML under it; every later APPLIED is the header then a unified diff of
// its YAML against the version seen before (noise left out; a change that
// is only noise prints nothing); DELETED is one line, as a new object:
//
//	APPLIED pod/web-0 -n demo (resourceVersion 4211) Ready=0/1 Status=Pending Restarts=0
//	APPLIED pod/web-0 -n demo (resourceVersion 4215)
//	--- resourceVersion 4211
//	+++ resourceVersion 4215
//	@@ -12,7 +12,7 @@
//	...
//	DELETED pod/web-0 -n demo (resourceVersion 4302) Ready=0/1 Status=Completed Restarts=0
//
// New objects are one line because on a busy kind their YAML buried the
// changes: 87 lines a pod, 12,562 lines in 20 s of churn (issue 48).
type diffPrinter struct {
	w       *bufio.Writer
	color   bool
	full    bool                // new objects' YAML too (Options.DiffNew)
	layouts map[kindKey]*layout // the printer columns of each kind, for the summaries
}

func newDiffPrinter(w *bufio.Writer, opts Options) *diffPrinter {
	return &diffPrinter{w: w, color: opts.Color, full: opts.DiffNew, layouts: map[kindKey]*layout{}}
}

func (p *diffPrinter) Print(ev Event) error {
	if ev.Object == nil {
		return errNoObject
	}
	name := kindPrefix(kindOf(ev)) + ev.Object.Name
	if ev.Object.Namespace != "" {
		name += " -n " + ev.Object.Namespace
	}
	if ev.Context != "" {
		name += " --context " + ev.Context
	}
	if ev.Type == Deleted || ev.Old == nil {
		p.header(ev.Type, name, ev.Object, p.summary(ev))
		if ev.Type == Deleted || !p.full {
			return nil
		}
		doc, err := quietYAML(ev.Object)
		if err != nil {
			return err
		}
		p.w.WriteString(indent(doc))
		return nil
	}
	diff, err := UnifiedDiff(ev.Old, ev.Object)
	if err != nil || diff == "" {
		return err
	}
	p.header(Applied, name, ev.Object, "")
	writeColouredDiff(p.w, diff, p.color)
	return nil
}

// summary is what the one line of a new or deleted object says of it: the
// cells of its kind's printer columns other than name and age (priority 0
// only), as " Name=value" pairs in the server's order, an empty cell as
// <none>; "" when the server sent no columns.
func (p *diffPrinter) summary(ev Event) string {
	l := layoutOf(p.layouts, ev, false, Options{})
	cells := l.serverCells(ev.Object)
	if cells == nil {
		return ""
	}
	var b strings.Builder
	for i, at := range l.pairs {
		v := cellText(l.cell(cells, at))
		if v == "" {
			v = "<none>"
		}
		b.WriteString(" " + l.pairKeys[i] + "=" + v)
	}
	return b.String()
}

// UnifiedDiff is the unified diff of two versions of an object's YAML,
// noise left out (resourceVersion, managedFields, generations): "" when
// only noise changed.
func UnifiedDiff(before, after *object.Object) (string, error) {
	a, err := quietYAML(before)
	if err != nil {
		return "", err
	}
	b, err := quietYAML(after)
	if err != nil {
		return "", err
	}
	return difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(a), B: difflib.SplitLines(b),
		FromFile: "resourceVersion " + before.ResourceVersion, ToFile: "resourceVersion " + after.ResourceVersion,
		Context: 3,
	})
}

// QuietYAML is an object's YAML without the noise UnifiedDiff leaves out.
func QuietYAML(obj *object.Object) (string, error) { return quietYAML(obj) }

func (p *diffPrinter) Flush() error { return p.w.Flush() }

// header writes an event's first line: its type, name (with -n and
// --context), resourceVersion, then summary.
func (p *diffPrinter) header(t EventType, name string, obj *object.Object, summary string) {
	label := string(t)
	if p.color {
		label = eventColour(t) + label + ansiReset
	}
	fmt.Fprintf(p.w, "%s %s (resourceVersion %s)%s\n", label, name, obj.ResourceVersion, summary)
}

// writeColouredDiff writes a unified diff, its lines coloured as git
// colours them when color: headers bold, additions green, removals red,
// hunk headers cyan.
func writeColouredDiff(w *bufio.Writer, diff string, color bool) {
	for _, line := range strings.SplitAfter(diff, "\n") {
		if line == "" {
			continue
		}
		colour := ""
		switch {
		case !color:
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
			colour = ansiBold
		case strings.HasPrefix(line, "+"):
			colour = ansiGreen
		case strings.HasPrefix(line, "-"):
			colour = ansiRed
		case strings.HasPrefix(line, "@@"):
			colour = ansiCyan
		}
		if colour == "" {
			w.WriteString(line)
			continue
		}
		w.WriteString(colour + strings.TrimSuffix(line, "\n") + ansiReset + "\n")
	}
}

// quietYAML is the object's YAML without the noise paths.
func quietYAML(obj *object.Object) (string, error) {
	raw := obj.JSON()
	var err error
	for _, path := range noisePaths {
		if raw, err = sjson.DeleteBytes(raw, path); err != nil {
			return "", fmt.Errorf("preparing the diff of %s/%s: %w", obj.Namespace, obj.Name, err)
		}
	}
	doc, err := yaml.JSONToYAML(raw)
	if err != nil {
		return "", fmt.Errorf("converting %s/%s to YAML: %w", obj.Namespace, obj.Name, err)
	}
	return string(doc), nil
}

func indent(doc string) string {
	return "  " + strings.ReplaceAll(strings.TrimSuffix(doc, "\n"), "\n", "\n  ") + "\n"
}
