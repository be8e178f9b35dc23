package get

import (
	"context"
	"fmt"
	"slices"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/cli"
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
	// object that cannot be read (cli.Wanted.Err).
	err error
}

// Run syncs a reflector per kind, takes the stores' snapshots and prints
// them. A kind that fails is reported and the others are printed; missing
// names are reported as kubectl does. Interrupted before every kind has
// listed, it prints nothing and returns cli.ErrInterrupted.
func (o *GetOptions) Run(ctx context.Context) error {
	// A table is cells and metadata, and a name is metadata, unless
	// --sort-by reads the objects.
	read := kube.Shape{
		Table:        o.serverColumns(),
		MetadataOnly: (o.humanReadable() || o.namesOnly()) && o.sortBy() == "",
		Prune:        object.Prune{ManagedFields: !o.PrintFlags.JSONYamlPrintFlags.ShowManagedFields},
	}
	if o.contexts != nil {
		return o.runContexts(ctx, read)
	}
	var snaps []snapshot
	var err error
	if o.At != "" {
		snaps, err = o.readAt(ctx)
	} else {
		snaps, err = o.read(ctx, read)
	}
	if err != nil {
		return err
	}
	missing := o.missing(snaps)
	if o.FromFiles() {
		missing = slices.Concat(o.Misplaced, missing, o.Unread)
	}
	if o.humanReadable() {
		var written bool
		groups := printed(snaps)
		written, err = output.PrintTables(o.Out, output.Tables(groups), output.WithKind(groups), o.printOptions())
		if !written && err == nil && len(missing) == 0 && !o.IgnoreNotFound {
			o.noResources()
		}
	} else if !o.FromFiles() || !o.FileSingle || len(missing) == 0 {
		err = output.PrintObjects(o.Out, printed(snaps), o.printOptions())
	} // else kubectl prints only the errors of the manifest
	if err != nil {
		return err
	}
	for _, line := range o.errorLines(missing) {
		fmt.Fprintln(o.ErrOut, line)
	}
	if len(missing) > 0 {
		return cli.ErrReported
	}
	return nil
}

// read takes what get prints of each target: the snapshots of stores,
// or, with --subresource, what a GET of each named object's subresource
// answers (no store holds subresources). Interrupted, it returns
// cli.ErrInterrupted: get prints nothing half-read.
func (o *GetOptions) read(ctx context.Context, read kube.Shape) ([]snapshot, error) {
	if o.Subresource != "" { // resource arguments only: -f reads the objects
		var snaps []snapshot
		for _, tg := range o.Targets {
			snaps = append(snaps, o.fetch(ctx, tg, read)...)
		}
		if ctx.Err() != nil {
			return nil, cli.ErrInterrupted
		}
		return snaps, nil
	}
	report := cli.NewReporter(o.ErrOut, output.IsTerminal(o.ErrOut))
	opts := o.OneShotOptions()
	opts.PageSize = o.ChunkSize // --list-mode=paged; 0 is the default
	// Stores list in the server's order, which kubectl prints (a Table's
	// rows may be sorted by the server).
	handles, release, err := o.Acquire(reflector.SetOptions{Watch: &opts, Hooks: report.Hooks(false), ListOrder: true}, read)
	if err != nil {
		return nil, err
	}
	defer release()
	failed := o.sync(ctx, handles)
	if ctx.Err() != nil {
		return nil, cli.ErrInterrupted // print nothing half-listed
	}
	snaps := o.snapshots(ctx, handles, failed, read)
	if ctx.Err() != nil {
		return nil, cli.ErrInterrupted
	}
	return snaps, nil
}

// sync waits for every reflector's first list and then stops it (its
// store stays as listed), and returns the errors of those that failed for
// good: a request that fails oneShotAttempts times in a row, or an error
// retrying cannot fix. get reports them after what it printed, in the
// order of its arguments, as kubectl does (see snapshots).
func (o *GetOptions) sync(ctx context.Context, handles []*reflector.Handle) map[*reflector.Handle]error {
	var mu sync.Mutex
	failed := map[*reflector.Handle]error{}
	var wg sync.WaitGroup
	for _, h := range handles {
		wg.Go(func() {
			err := reflector.WaitForSync(ctx, h)
			h.Release() // listed: get reads what it has
			if err != nil && ctx.Err() == nil {
				mu.Lock()
				failed[h] = err
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
func (o *GetOptions) snapshots(ctx context.Context, handles []*reflector.Handle, failed map[*reflector.Handle]error, read kube.Shape) []snapshot {
	var snaps []snapshot
	for _, tg := range o.Targets {
		if tg.Err != nil {
			snaps = append(snaps, snapshot{err: tg.Err})
			continue
		}
		r := handles[slices.Index(o.Feeds, tg.Feed())] // handles follow o.Feeds
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
func pick(r *reflector.Handle, tg cli.Wanted) []*object.Object {
	names := tg.Names
	if len(names) == 0 {
		return r.List()
	}
	ns := tg.Namespace
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
	filtered := o.FromFiles() && o.Selects()
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
				errs = append(errs, cli.ErrEmptyName)
			case o.IgnoreNotFound:
			case !slices.ContainsFunc(s.objs, func(obj *object.Object) bool { return obj.Name == name }):
				errs = append(errs, apierrors.NewNotFound(gr, name))
			}
		}
	}
	return errs
}

// errorLines words the errors get reports after what it printed, as
// kubectl get does: one by one (see output.KubectlError), but for get -f as a
// table, or as one manifest that printed nothing, whose errors keep the
// shape of its resource builder's (output.FileErrorLines).
func (o *GetOptions) errorLines(missing []error) []string {
	if o.FromFiles() && (o.humanReadable() || o.FileSingle) {
		listed := missing[len(o.Misplaced):]
		return output.FileErrorLines(o.Misplaced, listed, o.humanReadable())
	}
	lines := make([]string, len(missing))
	for i, m := range missing {
		lines[i] = output.KubectlError(m, len(missing) == 1)
	}
	return lines
}

// printed is what get prints of snaps: each that could be read, as a
// group of objects of one kind.
func printed(snaps []snapshot) []output.Group {
	groups := make([]output.Group, 0, len(snaps))
	for _, s := range snaps {
		if s.err == nil {
			groups = append(groups, output.Group{Kind: *cli.KindOf(s.res), Names: s.names, Objects: s.objs, Columns: s.columns})
		}
	}
	return groups
}

// printOptions are get's flags and arguments as output's printers take them.
func (o *GetOptions) printOptions() output.GetOptions {
	return output.GetOptions{
		Flags:          o.PrintFlags,
		AllNamespaces:  o.AllNamespaces,
		ChunkSize:      int(o.ChunkSize),
		SingleItem:     o.SingleItem(),
		IgnoreNotFound: o.IgnoreNotFound,
		NamesOnly:      o.namesOnly(),
		Now:            o.atFlags.when,     // zero but for --at
		TimesAtNow:     o.atFlags.At != "", // targetAt computed them
	}
}

func (o *GetOptions) noResources() {
	if o.AllNamespaces || !slices.ContainsFunc(o.Resources, func(r kube.Resource) bool { return r.Namespaced }) {
		fmt.Fprintln(o.ErrOut, "No resources found")
		return
	}
	fmt.Fprintf(o.ErrOut, "No resources found in %s namespace.\n", o.Namespace)
}
