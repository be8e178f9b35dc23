package history

import (
	"context"
	"errors"
	"io"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/cli"
	"github.com/kubectl-reflect/kubectl-reflect/internal/contexts"
	"github.com/kubectl-reflect/kubectl-reflect/internal/recordview"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
)

// completeContexts is Complete for several contexts: each context reads
// the argument itself (its own namespace and kind), in Run. No argument
// is answered as with one context.
func (o *HistoryOptions) completeContexts(args []string) error {
	if len(args) == 0 {
		t := o.Target.ForContext(o.contexts[0], o.IOStreams)
		return t.CompleteArgs(args, o.ErrOut, "history")
	}
	o.Verb, o.Args = "history", args
	return nil
}

// validateContexts refuses what names one context's history (a
// resourceVersion is one cluster's, and so is a history file), and
// arguments that name no object or several: once, as with one context,
// rather than once per context. The kind is resolved in each context.
func (o *HistoryOptions) validateContexts() error {
	switch {
	case o.Revision != "":
		return errors.New("--revision is a resourceVersion of one cluster: give one --context")
	case o.DB != "":
		return errors.New("--history-db is one context's history: give one --context")
	}
	args, err := kube.ParseArgs(o.Args, kube.ArgsOptions{Command: "kubectl reflect history"})
	if err != nil {
		return err
	}
	if len(args) != 1 || len(args[0].Names) != 1 {
		return cli.NotOneObject("history lists")
	}
	return nil
}

// contextHistory is what history read of one context: the object's kind
// there and its revisions.
type contextHistory struct {
	kind kube.Resource
	recordview.ContextRevisions
}

// runContexts reads the object's revisions in every context at once,
// each on its own (its namespace, kind and history), then prints those of
// the contexts that answered, in the order given: one table, CONTEXT
// first, or each context's diffs. A context that failed is one line on
// its stderr after the output ("context NAME: error: ..."), and the
// command then exits 1, as get --context a,b does.
func (o *HistoryOptions) runContexts(ctx context.Context) error {
	set := contexts.New(o.contexts, o.ErrOut)
	read := make([]contextHistory, len(o.contexts))
	errs := set.Go(ctx, func(ctx context.Context, i int, name string) error {
		h, err := o.readContext(ctx, name, set.Streams(i, o.IOStreams))
		read[i] = h
		return err
	}).Wait()
	if ctx.Err() != nil {
		return cli.ErrInterrupted // print nothing half-read
	}
	var answered []contextHistory
	for i, h := range read {
		if errs[i] == nil {
			answered = append(answered, h)
		}
	}
	if err := o.printContexts(o.Out, answered); err != nil {
		return err
	}
	failed := false
	for i, err := range errs {
		failed = set.Report(i, err) || failed
	}
	if failed {
		return cli.ErrReported
	}
	return nil
}

// readContext resolves the argument in context name and reads the
// object's revisions from that context's history.
func (o *HistoryOptions) readContext(ctx context.Context, name string, streams genericiooptions.IOStreams) (contextHistory, error) {
	t := o.Target.ForContext(name, streams)
	if err := t.CompleteArgs(o.Args, streams.ErrOut, "history"); err != nil {
		return contextHistory{}, err
	}
	if err := t.ResolveOne("history lists"); err != nil {
		return contextHistory{}, err
	}
	obj, err := t.ReadObject(ctx, "")
	if err != nil {
		return contextHistory{}, err
	}
	obj.Record.Close()
	return contextHistory{kind: obj.Wanted.Resource, ContextRevisions: recordview.ContextRevisions{Context: name, Revisions: obj.Revisions}}, nil
}

// printContexts prints what the contexts read: nothing when none
// answered, else one table, or (--diff) each context's diffs in turn.
func (o *HistoryOptions) printContexts(w io.Writer, read []contextHistory) error {
	if len(read) == 0 {
		return nil
	}
	if !o.Diff {
		table := make([]recordview.ContextRevisions, len(read))
		for i, h := range read {
			table[i] = h.ContextRevisions
		}
		return recordview.ContextsTable(w, table)
	}
	for _, h := range read {
		p := recordview.History{W: w, Kind: h.kind, Context: h.Context}
		if err := p.Diffs(h.Revisions); err != nil {
			return err
		}
	}
	return nil
}
