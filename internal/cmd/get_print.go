package cmd

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/kubectl/pkg/cmd/get"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/output"
)

// withKind says whether kubectl's tables name objects with their kind: when
// its answer holds several kinds, counting every kind listed (empty or
// not: one Table each) but only the objects found by name.
func withKind(snaps []snapshot) bool {
	var first *kube.Resource
	for _, s := range snaps {
		switch {
		case s.err != nil, len(s.names) > 0 && len(s.objs) == 0:
		case first == nil:
			first = &s.res
		case s.res != *first:
			return true
		}
	}
	return false
}

// tables groups snapshots as kubectl's tables: one per run of objects of
// the same resource, so cm/a secret/nope cm/b is one table of two rows,
// whatever their namespaces (a manifest's objects).
func tables(snaps []snapshot) []snapshot {
	var out []snapshot
	for _, s := range snaps {
		switch {
		case len(s.objs) == 0:
		case len(out) > 0 && out[len(out)-1].res == s.res:
			last := &out[len(out)-1]
			last.objs = append(slices.Clip(last.objs), s.objs...)
		default:
			out = append(out, s)
		}
	}
	return out
}

// printTables prints each snapshot as a table with kubectl's table
// printer, separated by a blank line, like kubectl get, with kinds in the
// names if withKind. written says whether it printed anything.
func (o *GetOptions) printTables(snaps []snapshot, withKind bool) (written bool, err error) {
	now := time.Now()
	buffered := bufio.NewWriterSize(o.Out, 64<<10) // the tabwriter writes cell by cell
	defer buffered.Flush()                         // on the error paths; the last line flushes too
	out := &countingWriter{w: buffered}
	for _, s := range snaps {
		res := s.res
		gk := schema.GroupKind{Group: res.GVR.Group, Kind: res.Kind}
		printer, err := o.tablePrinter(gk, o.AllNamespaces && res.Namespaced, withKind)
		if err != nil {
			return out.n > 0, err
		}
		if out.n > 0 && !*o.PrintFlags.NoHeaders {
			fmt.Fprintln(out)
		}
		w := printers.GetNewTabWriter(out)
		for _, objs := range chunks(s.objs, o.chunkSize()) {
			table, err := output.Table(*kindOf(res), s.columns, objs, output.TableOptions{
				Labels:      *o.PrintFlags.HumanReadableFlags.ShowLabels || len(*o.PrintFlags.HumanReadableFlags.ColumnLabels) > 0,
				FullObjects: o.sortBy() != "",
				Now:         now,
			})
			if err != nil {
				return out.n > 0, err
			}
			if err := printer.PrintObj(table, w); err != nil {
				return out.n > 0, err
			}
		}
		if err := w.Flush(); err != nil {
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

func (o *GetOptions) noResources() {
	if o.AllNamespaces || !slices.ContainsFunc(o.resources, func(r kube.Resource) bool { return r.Namespaced }) {
		fmt.Fprintln(o.ErrOut, "No resources found")
		return
	}
	fmt.Fprintf(o.ErrOut, "No resources found in %s namespace.\n", o.namespace)
}

// printGeneric prints every object as kubectl's json, yaml, name and
// template formats do: one v1 List, or the object itself when the
// arguments name one object; nothing when that one, or every one with
// --ignore-not-found, is missing. A List as json, yaml or name is written
// one object at a time (output.WriteList, printNames) unless --sort-by must
// see them all.
func (o *GetOptions) printGeneric(snaps []snapshot) error {
	var objs []*object.Object
	for _, s := range snaps {
		objs = append(objs, s.objs...)
	}
	if len(objs) == 0 && (o.singleItem() || o.IgnoreNotFound) {
		return nil
	}
	format := *o.PrintFlags.OutputFormat
	oneAtATime := !o.singleItem() && o.sortBy() == "" // a List no printer must see whole
	if oneAtATime && output.StreamsList(format) {
		return output.WriteList(o.Out, format, objs) // one object's maps at a time
	}
	pf := o.PrintFlags.Copy()
	printer, err := pf.ToPrinter()
	if err != nil {
		return err
	}
	if s := o.sortBy(); s != "" {
		printer = &get.SortingPrinter{Delegate: printer, SortField: s}
	}
	if o.namesOnly() && o.sortBy() == "" {
		// What the name printer does with a List, or with one object: its
		// kind is the resource's, which a PartialObjectMetadata's is not.
		return printNames(printer, snaps, o.Out)
	}
	var obj runtime.Object
	if o.singleItem() {
		if obj, err = objs[0].Unstructured(); err != nil {
			return err
		}
	} else {
		if obj, err = output.List(objs); err != nil {
			return err
		}
	}
	return printer.PrintObj(obj, o.Out)
}

// printNames prints each object of snaps with kubectl's name printer, which
// reads an object's apiVersion, kind and name only: it is given those, as a
// PartialObjectMetadata of the snapshot's resource, not the object decoded
// into maps. (get lists metadata only for names: the objects may be
// PartialObjectMetadata, or whole from a server that cannot convert.)
func printNames(printer printers.ResourcePrinter, snaps []snapshot, out io.Writer) error {
	w := bufio.NewWriterSize(out, 64<<10)
	for _, s := range snaps {
		res := s.res
		tm := metav1.TypeMeta{APIVersion: res.GVR.GroupVersion().String(), Kind: res.Kind}
		for _, obj := range s.objs {
			m := &metav1.PartialObjectMetadata{TypeMeta: tm, ObjectMeta: metav1.ObjectMeta{Namespace: obj.Namespace, Name: obj.Name}}
			if err := printer.PrintObj(m, w); err != nil {
				return err
			}
		}
	}
	return w.Flush()
}

func (o *GetOptions) tablePrinter(gk schema.GroupKind, withNamespace, withKind bool) (printers.ResourcePrinter, error) {
	pf := o.PrintFlags.Copy()
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
	if s := o.sortBy(); s != "" {
		p = &get.SortingPrinter{Delegate: p, SortField: s}
	}
	return p, nil
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
