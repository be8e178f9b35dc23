package timeline

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/cli"
	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/completion"
	"github.com/kubectl-reflect/kubectl-reflect/internal/contexts"
	"github.com/kubectl-reflect/kubectl-reflect/internal/timelineview"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/output"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/timeline"
)

const timelineExample = `  # What happened to pods and deployments in a namespace in the last two hours
  kubectl reflect timeline pods deploy -n web --since 2h

  # Every recorded kind of every namespace, between two times
  kubectl reflect timeline -A --since 2026-12-06T08:00:00Z --until 2026-12-06T09:00:00Z

  # The pods of an app in two clusters
  kubectl reflect timeline pods -l app=api -A --context eu-west,us-east`

// TimelineOptions are the flags and resolved inputs of `kubectl reflect
// timeline`.
type TimelineOptions struct {
	cli.Target
	genericiooptions.IOStreams

	// DB is --history-db: the history ("" finds each context's).
	DB string
	// Since and Until are the span as given: a duration ago or a time.
	Since, Until string
	// Width is the plain text's width in columns (0: 120).
	Width int
	// Interactive is --interactive: auto (a terminal), true or false.
	Interactive string

	since, until time.Time
	selector     labels.Selector
	contexts     []string // several (contexts.Names), nil for one
	now          func() time.Time
	html         htmlOutput // --html: html.go
}

// NewCmdTimeline is `kubectl reflect timeline`.
func NewCmdTimeline(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &TimelineOptions{Target: cli.Target{ConfigFlags: flags}, IOStreams: streams, now: time.Now}
	c := &cobra.Command{
		Use:     "timeline [KIND...] [flags]",
		Short:   "Draw what the recorded history (serve --record) holds as lanes of changes through time",
		Example: timelineExample,
		Long: `Timeline draws one lane per object that a daemon started with "kubectl reflect
serve KIND --record" recorded, grouped by context, kind and namespace, with a
mark per revision: created (+), there when recording began (o), spec changed
(*: the generation moved or a field other than status changed), status alone
changed (.), deleted (x), and a Warning Event about the object (!) where
Events are recorded. A density row and a time axis in UTC top it. Without
KIND it draws every recorded kind but Events.

In a terminal it is interactive: scroll lanes, move a cursor in time, zoom,
filter by typing (/), and Enter shows the revision under the cursor (its diff
as history --diff prints it, and the object then). Piped, it prints plain text.`,
		ValidArgsFunction: completion.KindArgs(flags, -1),
		RunE:              cli.RunE(o),
	}
	c.Flags().BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "Draw the kinds in every namespace")
	c.Flags().BoolVar(&o.AllContexts, "all-contexts", false, "Draw every context of the kubeconfig (--context also takes several, comma-separated)")
	c.Flags().StringVarP(&o.LabelSelector, "selector", "l", "", "Label selector to filter on (the labels of each object's latest revision in the span), e.g. -l app=api")
	c.Flags().StringVar(&o.Since, "since", "1h", "Where the timeline starts: a duration ago (2h) or a time (2026-12-04T07:00:00Z)")
	c.Flags().StringVar(&o.Until, "until", "", "Where the timeline ends: a duration ago (30m) or a time (default: now)")
	c.Flags().StringVar(&o.DB, "history-db", "", "The history, a file or a postgres:// URL (default: each context's daemon's, else the default of its cluster and user)")
	c.Flags().IntVar(&o.Width, "width", 0, "The plain text's width in columns (default 120)")
	c.Flags().StringVar(&o.Interactive, "interactive", "auto", "auto: interactive when standard input and output are a terminal, else plain text; true or false to choose")
	o.html.addFlags(c)
	return c
}

// Complete reads the contexts, the arguments and the namespace.
func (o *TimelineOptions) Complete(args []string) error {
	var err error
	if o.contexts, err = contexts.Names(o.ConfigFlags, o.AllContexts); err != nil {
		return err
	}
	// Every argument is a kind (a timeline draws kinds, not named
	// objects): `pods deploy` is pods,deploy, not a pod named deploy.
	if len(args) > 1 {
		args = []string{strings.Join(args, ",")}
	}
	o.Verb, o.Args = "timeline", args
	switch {
	case o.AllNamespaces:
		o.Namespace = ""
	case o.contexts != nil: // -n, else each context's own (open)
		if o.ConfigFlags.Namespace != nil {
			o.Namespace = *o.ConfigFlags.Namespace
		}
	default:
		if o.Namespace, _, err = o.ConfigFlags.ToRawKubeConfigLoader().Namespace(); err != nil {
			return fmt.Errorf("reading the kubeconfig: %w", err)
		}
	}
	return nil
}

// Validate checks the flags.
func (o *TimelineOptions) Validate() error {
	now := o.now()
	var err error
	if o.since, err = parseWhen("--since", o.Since, now); err != nil {
		return err
	}
	o.until = now
	if o.Until != "" {
		if o.until, err = parseWhen("--until", o.Until, now); err != nil {
			return err
		}
	}
	if !o.until.After(o.since) {
		return fmt.Errorf("--until %s is not after --since %s", stamp(o.until), stamp(o.since))
	}
	if o.selector, err = labels.Parse(o.LabelSelector); err != nil {
		return fmt.Errorf("invalid label selector %q: %w", o.LabelSelector, err)
	}
	switch o.Interactive {
	case "auto", "true", "false":
	default:
		return fmt.Errorf("invalid --interactive %q: want auto, true or false", o.Interactive)
	}
	if o.Width < 0 {
		return fmt.Errorf("invalid --width %d: must be 0 or more", o.Width)
	}
	if o.DB != "" && len(o.contexts) > 1 {
		return errors.New("--history-db is one context's history: give one --context")
	}
	return nil
}

// parseWhen reads a duration ago or an RFC 3339 time.
func parseWhen(flag, value string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(value); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	if t, err := time.Parse(time.RFC3339, value); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("invalid %s %q: want a duration ago (2h) or a time (2026-12-04T07:00:00Z)", flag, value)
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// Run reads the timeline, then draws it.
func (o *TimelineOptions) Run(ctx context.Context) error {
	srcs, closeAll, err := o.open(ctx)
	if err != nil {
		return err
	}
	defer closeAll()
	q := timeline.Query{Kinds: srcs.kinds, Namespace: o.Namespace, Selector: o.selector, Since: o.since, Until: o.until}
	if o.html.File != "" {
		return o.writeHTML(ctx, srcs, q)
	}
	tl, err := timeline.Build(ctx, srcs.clusters, q)
	if err != nil {
		return err
	}
	if o.interactive() {
		return timelineview.Run(ctx, o.In, o.Out, tl, timelineview.Details{Clusters: srcs.clusters, Resources: srcs.resources})
	}
	return timelineview.Plain{Width: o.Width, Contexts: len(srcs.clusters) > 1}.Print(o.Out, tl)
}

// interactive says whether to draw in the terminal: asked, or both
// standard output and input are one.
func (o *TimelineOptions) interactive() bool {
	switch o.Interactive {
	case "true":
		return true
	case "false":
		return false
	}
	return output.IsTerminal(o.Out) && output.IsTerminal(o.In) // keys are read from the terminal
}
