package get

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/cli"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/output"
)

// contextGet is what get reads of one context of several: the context's
// own options (its flags, namespace, kinds and reflectors) and what they
// read, or why the context could not be read at all.
type contextGet struct {
	name    string
	o       *GetOptions
	errOut  *cli.PrefixWriter // the command's stderr, each line after "context NAME: "
	snaps   []snapshot
	missing []error
	err     error
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
	prefixer := cli.NewPrefixer(o.ErrOut)
	gets := make([]*contextGet, len(o.contexts))
	var wg sync.WaitGroup
	for i, name := range o.contexts {
		w := prefixer.Writer("context " + name + ": ")
		g := &contextGet{name: name, errOut: w, o: o.forContext(name, w)}
		gets[i] = g
		wg.Go(func() { g.read(ctx, o.Args, read) })
	}
	wg.Wait()
	if ctx.Err() != nil {
		return cli.ErrInterrupted // print nothing half-read
	}
	written, err := o.printContexts(gets)
	if err != nil {
		return err
	}
	failed := false
	for _, g := range gets {
		failed = g.report(written) || failed
	}
	if failed {
		return cli.ErrReported
	}
	return nil
}

// read resolves the arguments in g's context and reads what they name.
func (g *contextGet) read(ctx context.Context, args []string, read kube.Shape) {
	if g.err = g.o.Complete(args); g.err == nil {
		g.err = g.o.resolve() // the flags were checked once, for every context
	}
	if g.err == nil {
		g.snaps, g.err = g.o.read(ctx, read)
	}
	if g.err == nil {
		g.missing = g.o.missing(g.snaps)
		if g.o.FromFiles() {
			g.missing = slices.Concat(g.o.Misplaced, g.missing, g.o.Unread)
		}
	}
}

// report writes g's errors (prefixed with its name), or says it holds
// nothing when nothing was written at all, and says whether it failed.
func (g *contextGet) report(written bool) bool {
	defer g.errOut.Flush()
	if g.err != nil {
		fmt.Fprintf(g.errOut, "error: %v\n", g.err)
		return true
	}
	for _, line := range g.o.errorLines(g.missing) {
		fmt.Fprintln(g.errOut, line)
	}
	if !written && len(g.missing) == 0 && !g.o.IgnoreNotFound && g.o.humanReadable() {
		g.o.noResources()
	}
	return len(g.missing) > 0
}

// printContexts prints the groups of every context that was read as one
// output: each kind's groups together (one table each), in the order the
// kinds first come, the contexts in the order given within each.
func (o *GetOptions) printContexts(gets []*contextGet) (bool, error) {
	var kinds []output.Kind
	byKind := map[output.Kind][]output.Group{}
	for _, g := range gets {
		if g.err != nil {
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
