package recordview

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/blame"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/output"
)

// Blame prints an object's blame or a field's log, as the blame verb
// does: as text, or as JSON.
type Blame struct {
	genericiooptions.IOStreams
	Kind            kube.Resource
	Namespace, Name string
	JSON            bool
}

// The words of the text output where a change tells nothing.
const (
	none            = "<none>"
	beforeRecording = "before recording"
	initial         = "INITIAL"
)

// columns are a change's annotation: resourceVersion, time, manager and
// operation, as the text output prints them.
func columns(c blame.Change) [4]string {
	rv := strconv.FormatUint(c.RV, 10)
	if c.Initial() {
		return [4]string{rv, beforeRecording, initial, none}
	}
	manager, op := c.Manager, c.Operation
	switch {
	case c.Op == history.Deleted:
		manager, op = none, none
	case manager == "":
		manager, op = "<unknown>", none
	case op == "":
		op = none
	case c.Subresource != "":
		op += "/" + c.Subresource
	}
	return [4]string{rv, When(history.Revision{Time: c.Time, Since: c.Since}), manager, op}
}

// Lines prints lines, each after its change's columns, aligned (git
// blame's way: no header); revs are those blamed, the last one said on
// stderr when it is a deletion.
func (p Blame) Lines(revs []history.Revision, lines []blame.Line) error {
	if last := revs[len(revs)-1]; last.Op == history.Deleted {
		fmt.Fprintf(p.ErrOut, "note: %s %q was deleted at %s (resourceVersion %d): blaming its last state\n",
			p.Kind.GVR.GroupResource(), p.Name, When(last), last.RV)
	}
	if p.JSON {
		return p.blameJSON(revs[len(revs)-1], lines)
	}
	cols := make([][4]string, len(lines))
	var width [4]int
	for i, l := range lines {
		cols[i] = columns(l.Change)
		for j, c := range cols[i] {
			width[j] = max(width[j], len(c))
		}
	}
	w := bufio.NewWriter(p.Out)
	for i, l := range lines {
		for j, c := range cols[i] {
			fmt.Fprintf(w, "%-*s  ", width[j], c)
		}
		w.WriteString(l.Text)
		w.WriteByte('\n')
	}
	return w.Flush()
}

// Log prints a field's entries, newest first: a table, or JSON.
func (p Blame) Log(path object.Path, entries []blame.Entry) error {
	if p.JSON {
		return p.logJSON(path, entries)
	}
	if len(entries) == 0 {
		fmt.Fprintf(p.ErrOut, "No value of %s recorded for %s %q.\n", path, p.Kind.GVR.GroupResource(), p.Name)
		return nil
	}
	rows := make([][]string, len(entries))
	for i, e := range entries {
		c := columns(e.Change)
		value := valueText(e.Value)
		if e.Deleted {
			value = "<object deleted>"
		}
		rows[i] = []string{value, valueText(e.Previous), c[2], c[3], c[1], c[0]}
	}
	return output.PlainTable(p.Out, []string{"VALUE", "PREVIOUS", "MANAGER", "OPERATION", "TIME", "RESOURCEVERSION"}, rows)
}

// maxValue is how much of a value the table prints.
const maxValue = 60

// valueText is a value as the table prints it: a string as it is, a
// number, true, false, null, a map or a list as compact JSON, at most
// maxValue characters; <none> when there was none.
func valueText(raw []byte) string {
	if raw == nil {
		return none
	}
	v := gjson.ParseBytes(raw)
	s := v.String()
	if v.IsObject() || v.IsArray() {
		var b bytes.Buffer
		if json.Compact(&b, raw) == nil {
			s = b.String()
		}
	} else if v.Type == gjson.Null {
		s = "null"
	}
	s = strings.NewReplacer("\n", `\n`, "\t", `\t`).Replace(s)
	if len([]rune(s)) > maxValue {
		s = string([]rune(s)[:maxValue-3]) + "..."
	}
	if s == "" {
		return `""`
	}
	return s
}
