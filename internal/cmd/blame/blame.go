package blame

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/cli"
	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/completion"
	"github.com/kubectl-reflect/kubectl-reflect/internal/moment"
	"github.com/kubectl-reflect/kubectl-reflect/internal/recordview"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/blame"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

const blameExample = `  # A deployment's YAML, each line with the revision that last set it:
  # resourceVersion, time, field manager, operation
  kubectl reflect blame deploy/web -n shop

  # As it was at a past moment (a time, a duration ago or a resourceVersion)
  kubectl reflect blame deploy/web --at 2026-12-06T07:00:00Z

  # Every value a field took, newest first: who set it, when, and the value before
  kubectl reflect blame deploy/web --field spec.replicas
  kubectl reflect blame deploy/web --field '{.spec.template.spec.containers[0].image}'

  # The same for scripts
  kubectl reflect blame deploy/web --field spec.replicas -o json`

// BlameOptions are the flags and resolved inputs of `kubectl reflect
// blame`.
type BlameOptions struct {
	cli.Target
	genericiooptions.IOStreams

	// DB is --history-db: the history's file ("" finds it: HistoryOf).
	DB string
	// Field is --field: print its log rather than the whole object.
	Field string
	// At is --at: blame the object as it was then ("": its latest revision).
	At string
	// Strict fails where --at's state is not known exactly.
	Strict bool
	Output string

	path object.Path
	at   moment.Moment
}

// NewCmdBlame is `kubectl reflect blame`.
func NewCmdBlame(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &BlameOptions{Target: cli.Target{ConfigFlags: flags}, IOStreams: streams}
	c := &cobra.Command{
		Use:     "blame (KIND/NAME | KIND NAME) [--field PATH] [--at TIME] [flags]",
		Short:   "Show who set each field of an object, and when (serve --record)",
		Example: blameExample,
		Long: `Blame prints an object's YAML as "kubectl get -o yaml" does (without
managedFields), each line annotated, as git blame does, with the revision
that last set its value: its resourceVersion, when it happened, the field
manager that made it and the operation of its managedFields entry (Apply or
Update, and the subresource: Update/status, Update/scale). A manager keeps
the blame for what it set even after another one took the field over. Lines
already so when recording began say INITIAL, before recording.

--field PATH prints one field's values through time instead, newest first:
VALUE, PREVIOUS, MANAGER, OPERATION, TIME, RESOURCEVERSION, its removals and
the object's deletion included. PATH is a dotted path (spec.replicas,
spec.template.spec.containers[0].image, metadata.labels['app']) or kubectl's
JSONPath of one field ({.spec.replicas}).

It reads the recorded revisions of that object alone, from the history of
the kubeconfig's cluster and user (the running daemon's, or the default
under $XDG_STATE_HOME/kubectl-reflect/history), or --history-db. An object
since deleted is blamed as it last was.`,
		ValidArgsFunction: completion.KindArgs(flags, 1),
		RunE:              cli.RunE(o),
	}
	c.Flags().StringVar(&o.DB, "history-db", "", "The history, a file or a postgres:// URL (default: the daemon's, else the default of the cluster and user)")
	c.Flags().StringVar(&o.Field, "field", "", "Print this field's values through time, newest first (spec.replicas, {.spec.replicas})")
	c.Flags().StringVar(&o.At, "at", "", "Blame the object as it was at a past moment: a time (2026-12-04T07:00:00Z), a duration ago (90m) or a resourceVersion")
	c.Flags().BoolVar(&o.Strict, "strict", false, "Fail where the state at --at is not known exactly (a change seen late, dated within a window that holds it)")
	c.Flags().StringVarP(&o.Output, "output", "o", "", "json for scripts (default: text)")
	_ = c.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"json"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// Complete reads the argument and the namespace.
func (o *BlameOptions) Complete(args []string) error {
	return o.Target.CompleteArgs(args, o.ErrOut, "blame")
}

// Validate checks the flags, then resolves the argument to one object.
func (o *BlameOptions) Validate() error {
	if o.Output != "" && o.Output != "json" {
		return fmt.Errorf("invalid -o %q: blame prints text, or json", o.Output)
	}
	if o.Field != "" {
		p, err := blame.ParseField(o.Field)
		if err != nil {
			return err
		}
		o.path = p
	}
	if o.At != "" {
		m, err := moment.Parse("--at", o.At, time.Now())
		if err != nil {
			return err
		}
		o.at = m
	} else if o.Strict {
		return errors.New("--strict is about the state --at reads: give --at too")
	}
	return o.Target.ResolveOne("blame reads")
}

// Run reads the object's revisions up to the moment asked and prints its
// blame, or its field's log.
func (o *BlameOptions) Run(ctx context.Context) error {
	obj, err := o.Target.ReadObject(ctx, o.DB)
	if err != nil {
		return err
	}
	defer obj.Record.Close()
	kind, revs := obj.Wanted.Resource, obj.Revisions
	p := recordview.Blame{IOStreams: o.IOStreams, Kind: kind, Namespace: obj.Namespace, Name: obj.Name, JSON: o.Output == "json"}
	if o.At != "" {
		if revs, err = o.upTo(ctx, obj.Record, history.ResourceName(kind), revs); err != nil {
			return err
		}
	}
	if o.Field != "" {
		return p.Log(o.path, blame.Log(revs, o.path))
	}
	lines, err := blame.Blame(revs)
	if err != nil {
		return fmt.Errorf("%s %q: %w", kind.GVR.GroupResource(), obj.Name, err)
	}
	return p.Lines(revs, lines)
}

// upTo is the revisions of revs (one object's, ns/name of res) up to the
// moment --at names.
func (o *BlameOptions) upTo(ctx context.Context, s history.Record, res string, revs []history.Revision) ([]history.Revision, error) {
	rv, when, err := o.at.In(ctx, s, "--at")
	if err != nil {
		return nil, err
	}
	hm, err := o.at.For(ctx, s, res, rv)
	if err != nil {
		return nil, fmt.Errorf("%s at %s: %w", o.Targets[0].Resource, when.UTC().Format(time.RFC3339), err)
	}
	r0 := revs[0]
	keep := func(namespace, name string) bool { return namespace == r0.Namespace && name == r0.Name }
	if err := moment.Uncertain(o.ErrOut, o.Targets[0].Resource, when, hm, keep, o.Strict); err != nil {
		return nil, err
	}
	n := 0
	for n < len(revs) && revs[n].RV <= hm.RV {
		n++
	}
	if n == 0 {
		return nil, fmt.Errorf("%s %q has no revision recorded by --at %s: its first is at resourceVersion %d (%s)",
			o.Targets[0].Resource.GVR.GroupResource(), r0.Name, o.At, r0.RV, recordview.When(r0))
	}
	return revs[:n], nil
}
