package output

import (
	"slices"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// kindKey tells kinds apart.
type kindKey struct{ group, kind string }

// layout is how one kind's rows print: which of the server's columns show,
// under which headers, and how wide the columns have grown.
type layout struct {
	columns   []object.Column // the server's columns the layout was built from; nil if none
	headers   []string        // EVENT, [NAMESPACE,] the shown columns
	source    []int           // for each shown column, its index in the object's cells
	context   bool            // a CONTEXT column follows EVENT
	namespace bool            // a NAMESPACE column follows EVENT (and CONTEXT)
	name, age int             // index in source of the name and age columns, -1 if not shown
	nameAt    int             // index in headers (and widths) of the name column, -1 if not shown
	prefix    string          // "deployment.apps/", put before names when kinds show
	labels    []string        // label keys shown as columns after the server's (-L)
	allLabels bool            // a LABELS column comes last (--show-labels)
	// pairs are the shown columns other than name and age (indexes in
	// source), which the several-kinds table prints as pairKeys[i]=value.
	pairs    []int
	pairKeys []string
	widths   widths
	// headed says whether the header was printed; each layout's header is
	// printed once, before its first row.
	headed bool
}

// fallbackColumns stand in when the server sent no Table for a kind.
var fallbackColumns = []object.Column{
	{Name: "Name", Type: "string", Format: "name"},
	{Name: "Age", Type: "string"},
}

// newLayout lays out kind k's rows. wide shows every column, not only those
// of priority 0; opts add NAMESPACE and label columns.
func newLayout(k Kind, columns []object.Column, wide bool, opts Options) *layout {
	l := &layout{
		columns: slices.Clone(columns), name: -1, age: -1, nameAt: -1, prefix: kindPrefix(k),
		labels: opts.ColumnLabels, allLabels: opts.ShowLabels,
	}
	l.headers = append(l.headers, "EVENT")
	if l.context = opts.Contexts; l.context {
		l.headers = append(l.headers, "CONTEXT")
	}
	if opts.AllNamespaces && k.Namespaced {
		l.namespace = true
		l.headers = append(l.headers, "NAMESPACE")
	}
	shown := columns
	if shown == nil {
		shown = fallbackColumns
	}
	name := nameColumn(shown)
	for i, c := range shown {
		if !wide && c.Priority != 0 {
			continue
		}
		switch {
		case i == name:
			l.name, l.nameAt = len(l.source), len(l.headers)
		case l.age < 0 && strings.EqualFold(c.Name, "Age"):
			l.age = len(l.source)
		default:
			l.pairs = append(l.pairs, len(l.source))
			l.pairKeys = append(l.pairKeys, c.Name)
		}
		l.source = append(l.source, i)
		l.headers = append(l.headers, strings.ToUpper(c.Name))
	}
	for _, key := range l.labels {
		l.headers = append(l.headers, labelHeader(key))
	}
	if l.allLabels {
		l.headers = append(l.headers, "LABELS")
	}
	return l
}

// labelHeader is the header kubectl gives the column of a label key (-L):
// the key's last path segment, upper-cased.
func labelHeader(key string) string {
	return strings.ToUpper(key[strings.LastIndexByte(key, '/')+1:])
}

// nameColumn finds the column holding the object's name: the one of format
// "name", as kubectl looks for it, else one called Name; -1 if none.
func nameColumn(columns []object.Column) int {
	if i := slices.IndexFunc(columns, func(c object.Column) bool { return c.Format == "name" }); i >= 0 {
		return i
	}
	return slices.IndexFunc(columns, func(c object.Column) bool { return strings.EqualFold(c.Name, "Name") })
}

// appendRow appends the cells of ev's row to dst. showKinds puts the kind
// before the name; now is the time AGE is counted to.
func (l *layout) appendRow(dst []string, ev Event, showKinds bool, now time.Time) []string {
	obj := ev.Object
	dst = append(dst, string(ev.Type))
	if l.context {
		dst = append(dst, cellText(ev.Context))
	}
	if l.namespace {
		dst = append(dst, cellText(obj.Namespace))
	}
	cells := l.serverCells(obj)
	for i := range l.source {
		v := l.cell(cells, i)
		switch i {
		case l.name:
			if v == "" {
				v = obj.Name
			}
			if showKinds {
				v = l.prefix + v
			}
		case l.age:
			v = age(obj.JSON(), v, now)
		}
		dst = append(dst, cellText(v))
	}
	if len(l.labels) > 0 || l.allLabels {
		dst = l.appendLabels(dst, obj.JSON())
	}
	return dst
}

// appendSharedRow appends the cells of ev's row in the several-kinds table
// (see sharedTable): EVENT, [NAMESPACE (with namespace),] kind/name, AGE,
// the label cells, then the values of the kind's other shown columns, one
// cell per pairKeys entry.
func (l *layout) appendSharedRow(dst []string, ev Event, namespace bool, now time.Time) []string {
	obj := ev.Object
	dst = append(dst, string(ev.Type))
	if l.context {
		dst = append(dst, cellText(ev.Context))
	}
	if namespace {
		dst = append(dst, cellText(obj.Namespace))
	}
	cells := l.serverCells(obj)
	name := l.cell(cells, l.name)
	if name == "" {
		name = obj.Name
	}
	dst = append(dst, cellText(l.prefix+name), cellText(age(obj.JSON(), l.cell(cells, l.age), now)))
	if len(l.labels) > 0 || l.allLabels {
		dst = l.appendLabels(dst, obj.JSON())
	}
	for _, i := range l.pairs {
		dst = append(dst, cellText(l.cell(cells, i)))
	}
	return dst
}

// serverCells are the object's Table cells, nil when the layout or the
// object has none.
func (l *layout) serverCells(obj *object.Object) []gjson.Result {
	if l.columns == nil || obj.Cells == nil {
		return nil
	}
	return gjson.ParseBytes(obj.Cells).Array()
}

// cell is the value of shown column i (an index in source) among cells,
// "" when i is -1 or the object has no such cell.
func (l *layout) cell(cells []gjson.Result, i int) string {
	if i < 0 || l.source[i] >= len(cells) {
		return ""
	}
	return cellValue(cells[l.source[i]])
}

// appendLabels appends the label cells: the value of each -L key, then all
// labels as k=v,... sorted by key (or <none>), as kubectl prints them.
func (l *layout) appendLabels(dst []string, raw []byte) []string {
	set := map[string]string{}
	gjson.GetBytes(raw, "metadata.labels").ForEach(func(k, v gjson.Result) bool {
		set[k.Str] = v.Str
		return true
	})
	for _, key := range l.labels {
		dst = append(dst, cellText(set[key]))
	}
	if l.allLabels {
		dst = append(dst, cellText(labels.FormatLabels(set)))
	}
	return dst
}

// cellValue is a cell as kubectl prints it: strings bare, numbers as the
// server wrote them, null as nothing.
func cellValue(v gjson.Result) string {
	switch v.Type {
	case gjson.String:
		return v.Str
	case gjson.Null:
		return ""
	default:
		return v.Raw
	}
}

// age is the object's age at now, as kubectl prints it. The server's cell
// was rendered when the event was sent, so it is recomputed from
// metadata.creationTimestamp; served stands when there is no timestamp.
func age(raw []byte, served string, now time.Time) string {
	ts := gjson.GetBytes(raw, "metadata.creationTimestamp").Str
	created, err := time.Parse(time.RFC3339, ts)
	if ts == "" || err != nil {
		if served != "" {
			return served
		}
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(created))
}
