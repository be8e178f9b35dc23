package get

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/cli"
	"github.com/kubectl-reflect/kubectl-reflect/internal/contexts"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/output"
)

// contextGet is what get reads of one context of several: the context's
// own options (its flags, namespace, kinds and reflectors) and what they
// read.
type contextGet struct {
	name    string
	o       *GetOptions
	snaps   []snapshot
	missing []error
}

var errStdinContexts = errors.New("-f - reads the manifest once: give a file for several contexts")

// completeContexts is Complete for several contexts: each context reads
// the arguments itself (its own namespace and kinds), in Run.
func (o *GetOptions) completeContexts(args []string) error {
	if slices.Contains(o.Files.Filenames, "-") {
		return errStdinContexts
	}
	if o.raw.Path != "" {
		return errors.New("--raw reads one context: give --context one name")
	}
	o.Verb, o.Args = "get", args
	return nil
}

// forContext is the options of context name: this command's flags, its
// stderr prefixed with the context's name.
func (o *GetOptions) forContext(name string, errOut io.Writer) *GetOptions {
	streams := genericiooptions.IOStreams{In: o.In, Out: o.Out, ErrOut: errOut}
	sub := *o
	sub.Target = o.Target.ForContext(name, streams)
	sub.IOStreams, sub.contexts = streams, nil
	return &sub
}

// runContexts reads every context at once, each on its own (its
// discovery, kinds, reflectors and retries), then prints what the
// contexts that answered hold as one output, tables with a CONTEXT column
// (output.Group.Contexts), and after it each context's errors, every line
// after "context NAME: ". It fails, after printing, when a context failed
// or missed a name, as kubectl does for partial results.
func (o *GetOptions) runContexts(ctx context.Context, read kube.Shape) error {
	set := contexts.New(o.contexts, o.ErrOut)
	gets := make([]*contextGet, len(o.contexts))
	for i, name := range o.contexts {
		gets[i] = &contextGet{name: name, o: o.forContext(name, set.ErrOut(i))}
	}
	errs := set.Go(ctx, func(ctx context.Context, i int, _ string) error {
		return gets[i].read(ctx, o.Args, read)
	}).Wait()
	if ctx.Err() != nil {
		return cli.ErrInterrupted // print nothing half-read
	}
	written, err := o.printContexts(gets, errs)
	if err != nil {
		return err
	}
	failed := false
	for i, g := range gets {
		if set.Report(i, errs[i]) {
			failed = true
			continue
		}
		failed = g.report(set.ErrOut(i), written) || failed
	}
	if failed {
		return cli.ErrReported
	}
	return nil
}

// read resolves the arguments in g's context and reads what they name.
func (g *contextGet) read(ctx context.Context, args []string, read kube.Shape) error {
	err := g.o.Complete(args)
	if err == nil {
		err = g.o.resolve() // the flags were checked once, for every context
	}
	if err == nil {
		g.snaps, err = g.o.read(ctx, read)
	}
	if err == nil {
		g.missing = g.o.missing(g.snaps)
		if g.o.FromFiles() {
			g.missing = slices.Concat(g.o.Misplaced, g.missing, g.o.Unread)
		}
	}
	return err
}

// report writes the names g missed on errOut, or says it holds nothing
// when nothing was written at all, and says whether it missed one.
func (g *contextGet) report(errOut *contexts.PrefixWriter, written bool) bool {
	defer errOut.Flush()
	for _, line := range g.o.errorLines(g.missing) {
		fmt.Fprintln(errOut, line)
	}
	if !written && len(g.missing) == 0 && !g.o.IgnoreNotFound && g.o.humanReadable() {
		g.o.noResources()
	}
	return len(g.missing) > 0
}

// printContexts prints the groups of every context that was read as one
// output: each kind's groups together (one table each), in the order the
// kinds first come, the contexts in the order given within each.
func (o *GetOptions) printContexts(gets []*contextGet, errs []error) (bool, error) {
	var kinds []output.Kind
	byKind := map[output.Kind][]output.Group{}
	for i, g := range gets {
		if errs[i] != nil {
			continue
		}
		for _, grp := range printed(g.snaps) {
			if _, ok := byKind[grp.Kind]; !ok {
				kinds = append(kinds, grp.Kind)
			}
			grp.Contexts = slices.Repeat([]string{g.name}, len(grp.Objects))
			byKind[grp.Kind] = append(byKind[grp.Kind], grp)
		}
	}
	var groups []output.Group
	for _, k := range kinds {
		groups = append(groups, byKind[k]...)
	}
	opts := o.printOptions()
	opts.SingleItem = false // the same object of several clusters is several
	if o.humanReadable() {
		return output.PrintTables(o.Out, output.Tables(groups), output.WithKind(groups), opts)
	}
	return true, output.PrintObjects(o.Out, groups, opts)
}
