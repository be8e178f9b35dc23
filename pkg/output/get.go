package output

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"time"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/kubectl/pkg/cmd/get"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// Group is what `get` prints of one argument: the objects of one
// resource found of the names asked (or every object: no Names), with the
// server's columns for them.
type Group struct {
	Kind    Kind
	Names   []string
	Objects []*object.Object
	Columns []object.Column
	// Contexts, when a command reads several kubeconfig contexts, are
	// the context each object came from (one per object); nil otherwise.
	// Tables then have a CONTEXT column first, objects the annotation
	// ContextAnnotation, and names the context before them.
	Contexts []string
}

// ContextAnnotation is the annotation that says, in what a command that
// reads several contexts prints of an object (-o json, yaml, templates;
// watch's events), which kubeconfig context it came from.
const ContextAnnotation = "kubectl-reflect.io/context"

// GetOptions say how `get` prints groups: kubectl get's print flags and
// what its arguments decide.
type GetOptions struct {
	Flags *get.PrintFlags
	// AllNamespaces (-A) adds NAMESPACE to tables of namespaced kinds.
	AllNamespaces bool
	// ChunkSize is the rows printed as one table (--chunk-size); 0, or a
	// --sort-by that must see them all, prints one.
	ChunkSize int
	// SingleItem: the arguments name one object, printed alone rather
	// than in a List (and not at all when it is missing).
	SingleItem bool
	// IgnoreNotFound prints nothing rather than an empty List.
	IgnoreNotFound bool
	// NamesOnly: -o name of objects whose metadata alone was read.
	NamesOnly bool
	// Now is the time AGE is computed at (zero: the time of printing);
	// get --at prints a past moment's.
	Now time.Time
	// TimesAtNow: the objects' cells have their times (AGE, ...) computed
	// at Now already, as get --at computes them while it decodes.
	TimesAtNow bool
}

func (o GetOptions) sortBy() string { return *o.Flags.HumanReadableFlags.SortBy }

// sorting is p sorted by --sort-by, or p without one.
func (o GetOptions) sorting(p printers.ResourcePrinter) printers.ResourcePrinter {
	if s := o.sortBy(); s != "" {
		return &get.SortingPrinter{Delegate: p, SortField: s}
	}
	return p
}

// WithKind says whether kubectl's tables name objects with their kind:
// when its answer holds several kinds, counting every kind listed (empty
// or not: one Table each) but only the objects found by name.
func WithKind(groups []Group) bool {
	var first *Kind
	for _, g := range groups {
		switch {
		case len(g.Names) > 0 && len(g.Objects) == 0:
		case first == nil:
			first = &g.Kind
		case g.Kind != *first:
			return true
		}
	}
	return false
}

// Tables groups groups as kubectl's tables: one per run of objects of the
// same resource, so cm/a secret/nope cm/b is one table of two rows,
// whatever their namespaces (a manifest's objects) or contexts (when their
// servers give the kind the same columns).
func Tables(groups []Group) []Group {
	var out []Group
	for _, g := range groups {
		switch {
		case len(g.Objects) == 0:
		case len(out) > 0 && out[len(out)-1].Kind == g.Kind && slices.Equal(out[len(out)-1].Columns, g.Columns):
			last := &out[len(out)-1]
			last.Objects = append(slices.Clip(last.Objects), g.Objects...)
			if g.Contexts != nil {
				last.Contexts = append(slices.Clip(last.Contexts), g.Contexts...)
			}
		default:
			out = append(out, g)
		}
	}
	return out
}

// PrintTables prints each table (see Tables) with kubectl's table printer,
// separated by a blank line, as kubectl get does, with kinds in the names
// if withKind. written says whether it printed anything.
func PrintTables(w io.Writer, tables []Group, withKind bool, opts GetOptions) (written bool, err error) {
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	buffered := bufio.NewWriterSize(w, 64<<10) // the tabwriter writes cell by cell
	defer buffered.Flush()                     // on the error paths; the last line flushes too
	out := &countingWriter{w: buffered}
	chunk := opts.ChunkSize
	if opts.sortBy() != "" {
		chunk = 0 // kubectl then lists in one request
	}
	for _, t := range tables {
		gk := schema.GroupKind{Group: t.Kind.Group, Kind: t.Kind.Kind}
		namespace := opts.AllNamespaces && t.Kind.Namespaced
		// With contexts, CONTEXT comes first and NAMESPACE after it, both
		// columns of the table: kubectl's printer puts its own first.
		printer, err := kubectlTablePrinter(opts, gk, namespace && t.Contexts == nil, withKind)
		if err != nil {
			return out.n > 0, err
		}
		if out.n > 0 && !*opts.Flags.NoHeaders {
			fmt.Fprintln(out)
		}
		tw := printers.GetNewTabWriter(out)
		from := 0 // the chunk's first object in t
		for _, objs := range chunks(t.Objects, chunk) {
			topts := TableOptions{
				Labels:      *opts.Flags.HumanReadableFlags.ShowLabels || len(*opts.Flags.HumanReadableFlags.ColumnLabels) > 0,
				FullObjects: opts.sortBy() != "",
				Now:         now,
				TimesAtNow:  opts.TimesAtNow,
			}
			if t.Contexts != nil {
				topts.Contexts, topts.Namespace = t.Contexts[from:from+len(objs)], namespace
			}
			from += len(objs)
			table, err := Table(t.Kind, t.Columns, objs, topts)
			if err != nil {
				return out.n > 0, err
			}
			if err := printer.PrintObj(table, tw); err != nil {
				return out.n > 0, err
			}
		}
		if err := tw.Flush(); err != nil {
			return out.n > 0, err
		}
	}
	return out.n > 0, buffered.Flush()
}

// chunks splits objs into runs of size (one run when size is 0; one empty
// run when there are none): kubectl prints each page of --chunk-size
// objects it lists as a table of its own, the header with the first, each
// aligned to the widest cells so far (the tabwriter's remembered widths),
// and so does get, byte for byte.
func chunks(objs []*object.Object, size int) [][]*object.Object {
	if size <= 0 || len(objs) <= size {
		return [][]*object.Object{objs}
	}
	var runs [][]*object.Object
	for len(objs) > 0 {
		n := min(size, len(objs))
		runs = append(runs, objs[:n])
		objs = objs[n:]
	}
	return runs
}

func kubectlTablePrinter(opts GetOptions, gk schema.GroupKind, withNamespace, withKind bool) (printers.ResourcePrinter, error) {
	pf := opts.Flags.Copy()
	pf.SetKind(gk)
	if withNamespace {
		if err := pf.EnsureWithNamespace(); err != nil {
			return nil, err
		}
	}
	if withKind {
		if err := pf.EnsureWithKind(); err != nil {
			return nil, err
		}
	}
	p, err := pf.ToPrinter()
	if err != nil {
		return nil, err
	}
	return opts.sorting(p), nil
}

// PrintObjects prints every object of groups as kubectl's json, yaml, name
// and template formats do: one v1 List, or the object itself when the
// arguments name one object; nothing when that one, or every one with
// IgnoreNotFound, is missing. A List as json, yaml or name is written one
// object at a time (WriteList, printNames) unless --sort-by must see them
// all.
func PrintObjects(w io.Writer, groups []Group, opts GetOptions) error {
	objs, contexts, err := annotated(groups)
	if err != nil {
		return err
	}
	if len(objs) == 0 && (opts.SingleItem || opts.IgnoreNotFound) {
		return nil
	}
	format := *opts.Flags.OutputFormat
	oneAtATime := !opts.SingleItem && opts.sortBy() == "" // a List no printer must see whole
	if oneAtATime && StreamsList(format) {
		return WriteList(w, format, objs) // one object's maps at a time
	}
	pf := opts.Flags.Copy()
	printer, err := pf.ToPrinter()
	if err != nil {
		return err
	}
	if contexts && format == "name" {
		printer = contextNames{printer}
	}
	printer = opts.sorting(printer)
	if opts.NamesOnly && opts.sortBy() == "" {
		// What the name printer does with a List, or with one object: its
		// kind is the resource's, which a PartialObjectMetadata's is not.
		return printNames(printer, groups, w)
	}
	var obj runtime.Object
	if opts.SingleItem {
		if obj, err = objs[0].Unstructured(); err != nil {
			return err
		}
	} else {
		if obj, err = List(objs); err != nil {
			return err
		}
	}
	return printer.PrintObj(obj, w)
}

// printNames prints each object of groups with kubectl's name printer,
// which reads an object's apiVersion, kind and name only: it is given
// those, as a PartialObjectMetadata of the group's resource, not the
// object decoded into maps. (get lists metadata only for names: the
// objects may be PartialObjectMetadata, or whole from a server that cannot
// convert.)
func printNames(printer printers.ResourcePrinter, groups []Group, out io.Writer) error {
	w := bufio.NewWriterSize(out, 64<<10)
	for _, g := range groups {
		gv := schema.GroupVersion{Group: g.Kind.Group, Version: g.Kind.Version}
		tm := metav1.TypeMeta{APIVersion: gv.String(), Kind: g.Kind.Kind}
		for i, obj := range g.Objects {
			m := &metav1.PartialObjectMetadata{TypeMeta: tm, ObjectMeta: metav1.ObjectMeta{Namespace: obj.Namespace, Name: obj.Name}}
			if g.Contexts != nil {
				m.Annotations = map[string]string{ContextAnnotation: g.Contexts[i]}
			}
			if err := printer.PrintObj(m, w); err != nil {
				return err
			}
		}
	}
	return w.Flush()
}

// annotated is every object of groups, those of several contexts with the
// annotation ContextAnnotation (contexts is then true).
func annotated(groups []Group) (objs []*object.Object, contexts bool, err error) {
	for _, g := range groups {
		if g.Contexts == nil {
			objs = append(objs, g.Objects...)
			continue
		}
		contexts = true
		for i, obj := range g.Objects {
			if obj, err = obj.WithAnnotation(ContextAnnotation, g.Contexts[i]); err != nil {
				return nil, false, err
			}
			objs = append(objs, obj)
		}
	}
	return objs, contexts, nil
}

// contextNames is kubectl's name printer for objects of several contexts:
// each line is the object's context (its ContextAnnotation), a space, then
// kubectl's kind/name. A List is printed item by item.
type contextNames struct{ names printers.ResourcePrinter }

func (p contextNames) PrintObj(obj runtime.Object, w io.Writer) error {
	if apimeta.IsListType(obj) {
		items, err := apimeta.ExtractList(obj)
		if err != nil {
			return err
		}
		for _, item := range items {
			if err := p.PrintObj(item, w); err != nil {
				return err
			}
		}
		return nil
	}
	m, err := apimeta.Accessor(obj)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(w, m.GetAnnotations()[ContextAnnotation]+" "); err != nil {
		return err
	}
	return p.names.PrintObj(obj, w)
}

// countingWriter counts what went through it.
type countingWriter struct {
	w io.Writer
	n int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}
