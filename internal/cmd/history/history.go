package history

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/cli"
	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/completion"
	"github.com/kubectl-reflect/kubectl-reflect/internal/contexts"
	"github.com/kubectl-reflect/kubectl-reflect/internal/recordview"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
)

const historyExample = `  # Every revision of a config map: resourceVersion, time, operation, manager
  kubectl reflect history cm/settings -n web

  # The same, the kind and the name apart
  kubectl reflect history cm settings -n web

  # What each revision changed, as unified diffs of its YAML
  kubectl reflect history deploy/api --diff

  # One revision's object (-o json for JSON)
  kubectl reflect history cm/settings --revision 48213

  # The revisions of the same object in several clusters, a CONTEXT column first
  kubectl reflect history cm/settings -n web --context east,west`

// HistoryOptions are the flags and resolved inputs of `kubectl reflect
// history`.
type HistoryOptions struct {
	cli.Target
	genericiooptions.IOStreams

	// DB is --history-db: the history's file ("" finds it: HistoryOf).
	DB   string
	Diff bool
	// Revision, if set, prints that revision's object, in Output's format
	// ("yaml", the default, or "json").
	Revision string
	Output   string
	// AllContexts is --all-contexts: every context of the kubeconfig.
	AllContexts bool

	revision uint64
	contexts []string // several (contexts.Names), nil for one
}

// NewCmdHistory is `kubectl reflect history`.
func NewCmdHistory(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &HistoryOptions{Target: cli.Target{ConfigFlags: flags}, IOStreams: streams}
	c := &cobra.Command{
		Use:     "history (KIND/NAME | KIND NAME) [flags]",
		Short:   "List every recorded revision of an object (serve --record)",
		Example: historyExample,
		Long: `History lists every revision of one object that a daemon started with
"kubectl reflect serve KIND --record" recorded: its resourceVersion, when it
was seen, what it did (ADDED, MODIFIED, DELETED) and the field manager of its
latest managedFields entry (who made it). --diff prints what each revision
changed; --revision prints one revision's object. It reads the history file
of the kubeconfig's cluster and user (the running daemon's, or the default
under $XDG_STATE_HOME/kubectl-reflect/history), or --history-db.

--context a,b (or --all-contexts) lists the object's revisions in each
context's history, one table with a CONTEXT column first, the contexts in
the order given (--diff: each revision's header line starts with its
context's name). Each context reads its own namespace unless -n is given.
A context whose history holds no revision of the object is one line on
stderr, after "context NAME: "; the others print, and the command exits
1. --revision and --history-db take one context.`,
		ValidArgsFunction: completion.KindArgs(flags, 1),
		RunE:              cli.RunE(o),
	}
	c.Flags().StringVar(&o.DB, "history-db", "", "The history, a file or a postgres:// URL (default: the daemon's, else the default of the cluster and user)")
	c.Flags().BoolVar(&o.Diff, "diff", false, "Print each revision as a unified diff of its YAML against the one before (the first in full)")
	c.Flags().StringVar(&o.Revision, "revision", "", "Print the object of the revision at this resourceVersion, as YAML (or -o json)")
	c.Flags().BoolVar(&o.AllContexts, "all-contexts", false, "List the revisions in every context of the kubeconfig (--context also takes several, comma-separated)")
	c.Flags().StringVarP(&o.Output, "output", "o", "", "The format of --revision's object: yaml (the default) or json")
	_ = c.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"yaml", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// Complete reads the contexts, the argument and the namespace (each
// context's own, in Run, when several).
func (o *HistoryOptions) Complete(args []string) error {
	var err error
	if o.contexts, err = contexts.Names(o.ConfigFlags, o.AllContexts); err != nil {
		return err
	}
	if o.contexts != nil {
		return o.completeContexts(args)
	}
	return o.Target.CompleteArgs(args, o.ErrOut, "history")
}

// Validate checks the flags and resolves the argument to one object (in
// each context, in Run, when several).
func (o *HistoryOptions) Validate() error {
	if err := o.validateFlags(); err != nil {
		return err
	}
	if o.contexts != nil {
		return o.validateContexts()
	}
	return o.Target.ResolveOne("history lists")
}

// validateFlags checks what needs no server.
func (o *HistoryOptions) validateFlags() error {
	if o.Diff && o.Revision != "" {
		return errors.New("--diff and --revision print different things: give one")
	}
	switch {
	case o.Output != "" && o.Revision == "":
		return fmt.Errorf("-o %s prints one revision's object: give --revision (the list and --diff have one format)", o.Output)
	case o.Output != "" && o.Output != "yaml" && o.Output != "json":
		return fmt.Errorf("invalid -o %q: --revision prints yaml or json", o.Output)
	}
	if o.Revision != "" {
		n, err := strconv.ParseUint(o.Revision, 10, 64)
		if err != nil {
			return fmt.Errorf("invalid --revision %q: want a resourceVersion (a number, from the REVISION column)", o.Revision)
		}
		o.revision = n
	}
	return nil
}

// Run reads the object's revisions and prints them.
func (o *HistoryOptions) Run(ctx context.Context) error {
	if o.contexts != nil {
		return o.runContexts(ctx)
	}
	obj, err := o.Target.ReadObject(ctx, o.DB)
	if err != nil {
		return err
	}
	defer obj.Record.Close()
	revs := obj.Revisions
	p := recordview.History{W: o.Out, Kind: obj.Wanted.Resource}
	switch {
	case o.Revision != "":
		if err := beforeRecord(ctx, obj.Record, obj.Wanted, revs, o.revision); err != nil {
			return err
		}
		return p.Revision(revs, o.revision, o.Output == "json")
	case o.Diff:
		return p.Diffs(revs)
	}
	return p.Table(revs)
}

// beforeRecord fails, saying where the record of tg's kind begins and
// why, when rv names no revision of revs and is before that beginning:
// the revision may have been, and been pruned (the revision each object
// had at the cut is kept).
func beforeRecord(ctx context.Context, s history.Record, tg cli.Wanted, revs []history.Revision, rv uint64) error {
	if slices.ContainsFunc(revs, func(r history.Revision) bool { return r.RV == rv }) {
		return nil
	}
	b, err := s.Begins(ctx, history.ResourceName(tg.Resource))
	if err != nil || rv >= b.RV {
		return nil // no revision there: said as such
	}
	return fmt.Errorf("%s %q at resourceVersion %d: %w", tg.Resource.GVR.GroupResource(), tg.Names[0], rv,
		&history.BeforeError{Oldest: b.RV, Time: b.Time, Pruned: b.Pruned})
}
