package diff

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/cli"
	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/completion"
	"github.com/kubectl-reflect/kubectl-reflect/internal/contexts"
	"github.com/kubectl-reflect/kubectl-reflect/internal/moment"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// Exit codes of diff, as diff(1) and kubectl diff have them.
const (
	exitDifferent = 1
	exitError     = 2
)

const diffExample = `  # What changed in a config map since 7:00, and between two moments of its record
  kubectl reflect diff cm/settings --at 2026-12-04T07:00:00Z
  kubectl reflect diff cm/settings --at 2h --at 30m

  # The same deployment in two clusters, now and as each recorded it an hour ago
  kubectl reflect diff deploy/api --context eu-west,us-east
  kubectl reflect diff deploy/api --context eu-west,us-east --at 1h

  # Every config map of a namespace in two clusters, one label left out
  kubectl reflect diff cm -n web --context eu-west,us-east --ignore metadata.labels.region`

// DiffOptions are the flags and resolved inputs of `kubectl reflect diff`.
type DiffOptions struct {
	cli.Target
	genericiooptions.IOStreams

	// At are the moments compared (--at, at most two), else one moment
	// of every context; none is now.
	At []string
	// DB is --history-db: the history --at reads ("" finds it).
	DB string
	// Ignore are the fields left out beside the noise (--ignore).
	Ignore        []string
	IncludeStatus bool

	contexts []string // several contexts (contexts.Names), nil for one
	moments  []moment.Moment
	ignore   []object.Path
	sources  []*source // one per context, in the order given
}

// NewCmdDiff is `kubectl reflect diff`.
func NewCmdDiff(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &DiffOptions{Target: cli.Target{ConfigFlags: flags, ListMode: "whole"}, IOStreams: streams}
	c := &cobra.Command{
		Use:     "diff (KIND/NAME | KIND [NAME...]) (--at T [--at T] | --context A,B[,...] [--at T]) [flags]",
		Short:   "Show what differs in objects between two moments of their history, or between clusters",
		Example: diffExample,
		Long: `Diff compares the objects of a kind, or named ones, in two states: two
moments of the history "serve --record" wrote (--at T1 --at T2; one --at is
compared with now), or several clusters (--context a,b[,c]: each against the
first, now or, with --at, as each context's history holds them then). It
prints a unified diff of each object's YAML that differs, under headers that
name the states, without status, resourceVersion, uid, managedFields,
creationTimestamp and generation (--ignore PATH leaves out more,
--include-status keeps status); an object some states lack is one line,
"only in A: KIND/NAME". It exits 0 when nothing differs, 1 when something
does, 2 on an error, as diff and kubectl diff do.`,
		ValidArgsFunction: completion.KindArgs(flags, -1),
		RunE: func(c *cobra.Command, args []string) error {
			return cli.WithExitCode(exitError, cli.RunE(o)(c, args))
		},
	}
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return cli.WithExitCode(exitError, err) })
	f := c.Flags()
	f.StringArrayVar(&o.At, "at", nil, "A moment of the history to compare (a time, 2026-12-04T07:00:00Z, a duration ago, 90m, or a resourceVersion); twice for two moments, once with several contexts")
	f.StringVar(&o.DB, "history-db", "", "The history --at reads, a file or a postgres:// URL (default: the running daemon's, else the default of the cluster and user); one context only")
	f.StringArrayVar(&o.Ignore, "ignore", nil, "A field to leave out of the comparison (repeatable): metadata.labels.team, spec.template.spec.containers[0].image, metadata.annotations['a.b/c']")
	f.BoolVar(&o.IncludeStatus, "include-status", false, "Compare status too (left out by default)")
	f.BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "Compare the kind's objects in every namespace, paired by namespace and name")
	f.BoolVar(&o.AllContexts, "all-contexts", false, "Compare every context of the kubeconfig with the first (--context also takes several, comma-separated)")
	f.StringVarP(&o.LabelSelector, "selector", "l", "", "Label selector to filter on, e.g. -l key1=value1,key2=value2")
	f.BoolVar(&o.NoDaemon, "no-daemon", false, "Read the API server even when a kubectl reflect serve of the same cluster and user runs")
	return c
}

// Complete reads the contexts, the flags' paths and moments, and the
// arguments of each context.
func (o *DiffOptions) Complete(args []string) error {
	var err error
	if o.contexts, err = contexts.Names(o.ConfigFlags, o.AllContexts); err != nil {
		return err
	}
	for _, text := range o.Ignore {
		p, err := object.ParsePath(text)
		if err != nil {
			return fmt.Errorf("--ignore: %w", err)
		}
		o.ignore = append(o.ignore, p)
	}
	now := time.Now()
	for _, at := range o.At {
		m, err := moment.Parse("--at", at, now)
		if err != nil {
			return err
		}
		o.moments = append(o.moments, m)
	}
	if o.contexts == nil {
		o.sources = []*source{{Target: o.Target, errOut: o.ErrOut}}
	} else {
		set := contexts.New(o.contexts, o.ErrOut)
		for i, name := range o.contexts {
			o.sources = append(o.sources, &source{context: name, Target: o.Target.ForContext(name, set.Streams(i, o.IOStreams)), errOut: set.ErrOut(i)})
		}
	}
	for _, s := range o.sources {
		if err := s.CompleteArgs(args, o.ErrOut, "diff"); err != nil {
			return err
		}
	}
	return nil
}

// Validate checks the flags, then resolves the kind in each context.
func (o *DiffOptions) Validate() error {
	switch several := o.contexts != nil; {
	case len(o.moments) > 2:
		return errors.New("diff compares two moments: give --at at most twice")
	case several && len(o.moments) > 1:
		return errors.New("with several contexts, diff compares each context's state at one moment: give --at once")
	case several && len(o.moments) == 1 && o.moments[0].RV != 0:
		return fmt.Errorf("--at %s: with several contexts --at is a time, 2026-12-04T07:00:00Z or a duration ago (each cluster counts its own resourceVersions)", o.At[0])
	case several && o.DB != "":
		return errors.New("--history-db is one context's history: with several contexts each reads its own")
	case !several && len(o.moments) == 0:
		return errors.New("diff compares two states: give --at T (compared with now), --at T1 --at T2, or --context A,B")
	}
	if err := o.Target.ValidateFlags(); err != nil {
		return err
	}
	for _, s := range o.sources {
		if err := s.resolve(); err != nil {
			return s.wrap(err)
		}
	}
	return nil
}
