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
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/kubectl/pkg/cmd/get"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/output"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// snapshot is what get prints of one kind.
type snapshot struct {
	r    *reflector
	objs []*object.Object
}

// Run syncs a reflector per kind, takes the stores' snapshots and prints
// them. A kind that fails is reported and the others are printed; missing
// names are reported as kubectl does. Interrupted before every kind has
// listed, it prints nothing and returns errInterrupted.
func (o *GetOptions) Run(ctx context.Context) error {
	prune := object.Prune{ManagedFields: !o.PrintFlags.JSONYamlPrintFlags.ShowManagedFields}
	reflectors, err := o.reflectors(o.humanReadable(), prune)
	if err != nil {
		return err
	}
	report := newReporter(o.ErrOut, isTerminal(o.ErrOut))
	failed := o.sync(ctx, reflectors, report)
	if ctx.Err() != nil {
		return errInterrupted // print nothing half-listed
	}
	var snaps []snapshot
	for _, r := range reflectors {
		if !failed[r] {
			snaps = append(snaps, snapshot{r: r, objs: o.pick(r)})
		}
	}
	missing := o.missing(snaps)
	if o.humanReadable() {
		var written bool
		if written, err = o.printTables(snaps); !written && err == nil && len(failed) == 0 && len(o.names) == 0 {
			o.noResources()
		}
	} else {
		err = o.printGeneric(snaps)
	}
	if err != nil {
		return err
	}
	for _, m := range missing {
		fmt.Fprintf(o.ErrOut, "Error from server (NotFound): %v\n", m)
	}
	if len(failed) > 0 || len(missing) > 0 {
		return errReported
	}
	return nil
}

// sync runs every reflector until its store has its first list, and
// returns those that failed for good (already reported): a request that
// fails oneShotAttempts times in a row, or an error retrying cannot fix.
func (o *GetOptions) sync(ctx context.Context, reflectors []*reflector, report *reporter) map[*reflector]bool {
	var mu sync.Mutex
	failed := map[*reflector]bool{}
	var wg sync.WaitGroup
	for _, r := range reflectors {
		wg.Go(func() {
			if err := r.list(ctx, o.oneShotOptions(), report); err != nil {
				report.errorf("%v", err)
				mu.Lock()
				failed[r] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return failed
}

// list runs r until its store has synced once.
func (r *reflector) list(ctx context.Context, opts watch.Options, report *reporter) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-r.store.Synced():
			cancel()
		case <-ctx.Done():
		}
	}()
	return r.run(ctx, opts, report)
}

// pick returns the stored objects get prints: all of them, or the named
// ones in the order given.
func (o *GetOptions) pick(r *reflector) []*object.Object {
	if len(o.names) <= 1 {
		return r.store.List(nil)
	}
	var objs []*object.Object
	for _, name := range o.names {
		ns := o.namespace
		if !r.client.Resource().Namespaced {
			ns = ""
		}
		if obj, ok := r.store.Get(store.Key{Namespace: ns, Name: name}); ok {
			objs = append(objs, obj)
		}
	}
	return objs
}

// missing lists NotFound errors for names that are not in the snapshots.
func (o *GetOptions) missing(snaps []snapshot) []error {
	if len(o.names) == 0 || o.IgnoreNotFound {
		return nil
	}
	var errs []error
	for _, s := range snaps {
		gr := s.r.client.Resource().GVR.GroupResource()
		for _, name := range o.names {
			if !slices.ContainsFunc(s.objs, func(obj *object.Object) bool { return obj.Name == name }) {
				errs = append(errs, apierrors.NewNotFound(gr, name))
			}
		}
	}
	return errs
}

// printTables prints one table per kind with kubectl's table printer,
// separated by a blank line, like kubectl get. written says whether it
// printed anything.
func (o *GetOptions) printTables(snaps []snapshot) (written bool, err error) {
	now := time.Now()
	withKind := len(o.resources) > 1
	buffered := bufio.NewWriterSize(o.Out, 64<<10) // the tabwriter writes cell by cell
	defer buffered.Flush()                         // on the error paths; the last line flushes too
	out := &countingWriter{w: buffered}
	for _, s := range snaps {
		if len(s.objs) == 0 {
			continue
		}
		res := s.r.client.Resource()
		gk := schema.GroupKind{Group: res.GVR.Group, Kind: res.Kind}
		printer, err := o.tablePrinter(gk, o.AllNamespaces && res.Namespaced, withKind)
		if err != nil {
			return out.n > 0, err
		}
		table, err := output.Table(*kindOf(res), s.r.client.Columns(), s.objs, output.TableOptions{
			Labels:      *o.PrintFlags.HumanReadableFlags.ShowLabels || len(*o.PrintFlags.HumanReadableFlags.ColumnLabels) > 0,
			FullObjects: o.sortBy() != "",
			Now:         now,
		})
		if err != nil {
			return out.n > 0, err
		}
		if out.n > 0 && !*o.PrintFlags.NoHeaders {
			fmt.Fprintln(out)
		}
		w := printers.GetNewTabWriter(out)
		if err := printer.PrintObj(table, w); err != nil {
			return out.n > 0, err
		}
		if err := w.Flush(); err != nil {
			return out.n > 0, err
		}
	}
	return out.n > 0, buffered.Flush()
}

func (o *GetOptions) noResources() {
	if o.AllNamespaces || !slices.ContainsFunc(o.resources, func(r kube.Resource) bool { return r.Namespaced }) {
		fmt.Fprintln(o.ErrOut, "No resources found")
		return
	}
	fmt.Fprintf(o.ErrOut, "No resources found in %s namespace.\n", o.namespace)
}

// printGeneric prints every object as kubectl's json, yaml, name and
// template formats do: one v1 List, or the object itself for one name.
func (o *GetOptions) printGeneric(snaps []snapshot) error {
	var objs []*object.Object
	for _, s := range snaps {
		objs = append(objs, s.objs...)
	}
	pf := o.PrintFlags.Copy()
	printer, err := pf.ToPrinter()
	if err != nil {
		return err
	}
	if s := o.sortBy(); s != "" {
		printer = &get.SortingPrinter{Delegate: printer, SortField: s}
	}
	var obj runtime.Object
	if len(o.names) == 1 && len(objs) == 1 {
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
