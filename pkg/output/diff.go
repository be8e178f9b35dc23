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

// diffPrinter prints `watch --diff`: the first sighting of an object as
// YAML, every later APPLIED as a unified diff of its YAML against the
// version seen before (noise left out; a change that is only noise prints
// nothing), and DELETED as one line.
type diffPrinter struct {
	w     *bufio.Writer
	color bool
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
	switch {
	case ev.Type == Deleted:
		p.header(Deleted, name, ev.Object)
		return nil
	case ev.Old == nil:
		doc, err := quietYAML(ev.Object)
		if err != nil {
			return err
		}
		p.header(Applied, name, ev.Object)
		p.w.WriteString(indent(doc))
		return nil
	}
	diff, err := UnifiedDiff(ev.Old, ev.Object)
	if err != nil || diff == "" {
		return err
	}
	p.header(Applied, name, ev.Object)
	p.writeDiff(diff)
	return nil
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

func (p *diffPrinter) header(t EventType, name string, obj *object.Object) {
	label := string(t)
	if p.color {
		label = eventColour(t) + label + ansiReset
	}
	fmt.Fprintf(p.w, "%s %s (resourceVersion %s)\n", label, name, obj.ResourceVersion)
}

func (p *diffPrinter) writeDiff(diff string) {
	for _, line := range strings.SplitAfter(diff, "\n") {
		if line == "" {
			continue
		}
		colour := ""
		switch {
		case !p.color:
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
			p.w.WriteString(line)
			continue
		}
		p.w.WriteString(colour + strings.TrimSuffix(line, "\n") + ansiReset + "\n")
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
