package cmd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/kubectl/pkg/cmd/get"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/output"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// snapshot is what get prints of one target: the objects found of the
// names asked, or every object.
type snapshot struct {
	res     kube.Resource
	names   []string
	objs    []*object.Object
	columns []object.Column // the server's, for a table
	// err, instead, is what the target cannot be read for: its list failed
	// (or a GET of one of its names, see fetch), or it is a manifest's
	// object that cannot be read (wanted.err).
	err error
}

// Run syncs a reflector per kind, takes the stores' snapshots and prints
// them. A kind that fails is reported and the others are printed; missing
// names are reported as kubectl does. Interrupted before every kind has
// listed, it prints nothing and returns errInterrupted.
func (o *GetOptions) Run(ctx context.Context) error {
	// A table is cells and metadata, and a name is metadata, unless
	// --sort-by reads the objects.
	read := kube.Scope{
		Table:        o.humanReadable(),
		MetadataOnly: (o.humanReadable() || *o.PrintFlags.OutputFormat == "name") && o.sortBy() == "",
		Prune:        object.Prune{ManagedFields: !o.PrintFlags.JSONYamlPrintFlags.ShowManagedFields},
	}
	report := newReporter(o.ErrOut, isTerminal(o.ErrOut))
	opts := o.oneShotOptions()
	opts.PageSize = o.ChunkSize // --list-mode=paged; 0 is the default
	leases, release, err := o.acquire(opts, report.hooks(false), read)
	if err != nil {
		return err
	}
	defer release()
	failed := o.sync(ctx, leases)
	if ctx.Err() != nil {
		return errInterrupted // print nothing half-listed
	}
	snaps := o.snapshots(ctx, leases, failed, read)
	if ctx.Err() != nil {
		return errInterrupted
	}
	missing := o.missing(snaps)
	if o.fromFiles() {
		missing = slices.Concat(o.misplaced, missing, o.unread)
	}
	if o.humanReadable() {
		var written bool
		written, err = o.printTables(tables(snaps), withKind(snaps))
		if !written && err == nil && len(missing) == 0 && !o.IgnoreNotFound {
			o.noResources()
		}
	} else if !o.fromFiles() || !o.fileSingle || len(missing) == 0 {
		err = o.printGeneric(snaps)
	} // else kubectl prints only the errors of the manifest
	if err != nil {
		return err
	}
	for _, line := range o.errorLines(missing) {
		fmt.Fprintln(o.ErrOut, line)
	}
	if len(missing) > 0 {
		return errReported
	}
	return nil
}

// sync waits for every reflector's first list and then stops it (its
// store stays as listed), and returns the errors of those that failed for
// good: a request that fails oneShotAttempts times in a row, or an error
// retrying cannot fix. get reports them after what it printed, in the
// order of its arguments, as kubectl does (see snapshots).
func (o *GetOptions) sync(ctx context.Context, leases []*reflector.Lease) map[*reflector.Lease]error {
	var mu sync.Mutex
	failed := map[*reflector.Lease]error{}
	var wg sync.WaitGroup
	for _, l := range leases {
		wg.Go(func() {
			err := reflector.WaitForSync(ctx, l)
			l.Release() // listed: get reads what it has
			if err != nil && ctx.Err() == nil {
				mu.Lock()
				failed[l] = err
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return failed
}

// snapshots takes what get prints of each target, in the order given: the
// objects its store holds, or, when its list failed, the error, or what
// GETs of its names read (fetch) where kubectl's GETs could succeed.
func (o *GetOptions) snapshots(ctx context.Context, leases []*reflector.Lease, failed map[*reflector.Lease]error, read kube.Scope) []snapshot {
	var snaps []snapshot
	for _, tg := range o.targets {
		if tg.err != nil {
			snaps = append(snaps, snapshot{err: tg.err})
			continue
		}
		r := leases[slices.Index(o.sources, tg.source())] // leases follow o.sources
		switch err := failed[r]; {
		case err == nil:
			snaps = append(snaps, snapshot{res: tg.Resource, names: tg.Names, objs: pick(r, tg), columns: r.Columns()})
		case o.byName(tg, err):
			snaps = append(snaps, o.fetch(ctx, tg, read)...)
		default:
			snaps = append(snaps, snapshot{res: tg.Resource, err: err})
		}
	}
	return snaps
}

// pick returns the stored objects of tg's names in the order given (twice
// if named twice, as kubectl prints them), or every stored object.
func pick(r *reflector.Lease, tg wanted) []*object.Object {
	names := tg.Names
	if len(names) == 0 {
		return r.List()
	}
	ns := tg.namespace
	if !tg.Resource.Namespaced {
		ns = ""
	}
	var objs []*object.Object
	for _, name := range names {
		if obj, ok := r.Get(store.Key{Namespace: ns, Name: name}); ok {
			objs = append(objs, obj)
		}
	}
	return objs
}

// missing lists NotFound errors for the names that are not in the
// snapshots, and the errors of manifests' objects that cannot be read, in
// the order given. A manifest's object that a selector leaves out is not
// missing: kubectl get -f -l says nothing of it.
func (o *GetOptions) missing(snaps []snapshot) []error {
	filtered := o.fromFiles() && o.selects()
	var errs []error
	for _, s := range snaps {
		if s.err != nil {
			if !o.IgnoreNotFound || !apierrors.IsNotFound(s.err) {
				errs = append(errs, s.err)
			}
			continue
		}
		gr := s.res.GVR.GroupResource()
		for _, name := range s.names {
			switch {
			case filtered:
			case name == "":
				errs = append(errs, errEmptyName)
			case o.IgnoreNotFound:
			case !slices.ContainsFunc(s.objs, func(obj *object.Object) bool { return obj.Name == name }):
				errs = append(errs, apierrors.NewNotFound(gr, name))
			}
		}
	}
	return errs
}

// errorLines words the errors get reports after what it printed, as
// kubectl get does: one by one (see missingMessage), but for get -f as a
// table, or as one manifest that printed nothing, whose errors keep the
// shape of its resource builder's (fileErrorLines).
func (o *GetOptions) errorLines(missing []error) []string {
	if o.fromFiles() && (o.humanReadable() || o.fileSingle) {
		listed := missing[len(o.misplaced):]
		return fileErrorLines(o.misplaced, listed, o.humanReadable())
	}
	lines := make([]string, len(missing))
	for i, m := range missing {
		lines[i] = missingMessage(m, len(missing) == 1)
	}
	return lines
}

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
	if oneAtATime && format == "name" {
		return printNames(printer, snaps, o.Out) // what the name printer does with a List
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
