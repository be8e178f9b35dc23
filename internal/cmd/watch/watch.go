package watch

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/cli"
	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/completion"
	"github.com/kubectl-reflect/kubectl-reflect/internal/contexts"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/output"
)

const watchExample = `  # Stream config maps, secrets and deployments of every namespace
  kubectl reflect watch configmaps,secrets,deploy.apps -A

  # Two config maps by name, waiting for the one that does not exist yet
  kubectl reflect watch cm settings feature-flags -n web

  # What a manifest holds, each object in its namespace, as it is applied
  kubectl reflect watch -f app.yaml

  # Only changes from now on, as NDJSON, for one labelled set
  kubectl reflect watch cm -l app=web --watch-only -o json

  # Wait for the next deletion of a pod, then exit
  kubectl reflect watch pod/web-0 --events deleted --max-events 1

  # One line per event for a script: "configmap/settings applied", "... deleted"
  kubectl reflect watch cm -o name --output-watch-events

  # Each change to a pod as a diff of its YAML; new and deleted pods as one line each
  kubectl reflect watch pods --diff

  # What happened to config maps in the last hour (serve --record's history), then live
  kubectl reflect watch cm --since 1h`

// WatchOptions are the flags and resolved inputs of `kubectl reflect watch`.
type WatchOptions struct {
	cli.Target
	genericiooptions.IOStreams

	PrintFlags output.StreamFlags
	WatchOnly  bool
	Events     []string
	MaxEvents  int
	Timeout    time.Duration
	Diff       bool
	DiffNew    bool
	sinceFlags

	events    map[output.EventType]bool
	color     bool
	progress  bool
	printOpts output.Options // what the print flags ask for, checked by Validate
	// NoServerPrint is get -w --server-print=false: tables of NAME and AGE,
	// not the server's columns.
	NoServerPrint bool
	// KubectlErrors is get -w: a kind that fails for good is reported as
	// kubectl get reports it (Error from server (Forbidden): ...).
	KubectlErrors bool
	// contexts are the kubeconfig contexts watched when several are
	// (contexts.Names): each then reads on its own (runContexts).
	contexts []string
}

// NewCmdWatch is `kubectl reflect watch`.
func NewCmdWatch(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	return newCmdWatch(&WatchOptions{Target: cli.Target{ConfigFlags: flags}, IOStreams: streams, PrintFlags: output.NewStreamFlags()})
}

// newCmdWatch is `kubectl reflect watch` running o.
func newCmdWatch(o *WatchOptions) *cobra.Command {
	c := &cobra.Command{
		Use:     "watch (KIND[,KIND...] [NAME...] | KIND/NAME... | -f FILENAME | -k DIR) [flags]",
		Short:   "Stream what is applied to and deleted from one or more kinds",
		Example: watchExample,
		Long: `Watch lists the objects of each kind, prints them as APPLIED, then prints every
change as APPLIED or DELETED. It never stops on its own: when a watch ends it
resumes from the last resourceVersion; when that is too old (410 Gone) it
relists and prints only what changed meanwhile, deletions included.`,
		Args:              cobra.ArbitraryArgs, // kubectl's checks and words: cli.Target.CompleteArgs and kube.ParseArgs
		ValidArgsFunction: completion.KindArgs(o.ConfigFlags, -1),
		RunE:              cli.RunE(o),
	}
	f := c.Flags()
	o.Target.AddFlags(f, "Watch")
	o.PrintFlags.AddFlags(c)
	output.AddWatchEventsFlag(c, &o.PrintFlags.OutputWatchEvents)
	_ = f.MarkHidden("sort-by") // accepted as kubectl get -w accepts it, with its warning; a stream has no order to pick
	f.BoolVar(&o.WatchOnly, "watch-only", false, "Skip the objects that exist at start; print changes only")
	f.StringSliceVar(&o.Events, "events", []string{"applied", "deleted"}, "Event types to print: applied, deleted")
	_ = c.RegisterFlagCompletionFunc("events", completion.Events)
	f.IntVar(&o.MaxEvents, "max-events", 0, "Exit after printing this many events (0: no limit)")
	f.DurationVar(&o.Timeout, "timeout", 0, "Exit after this long (0: never), e.g. 30s")
	o.sinceFlags.addFlags(f)
	f.BoolVar(&o.Diff, "diff", false, "Print changes to objects already seen as unified diffs of their YAML (resourceVersion, managedFields and generation left out); new objects and deletions as one line each")
	f.BoolVar(&o.DiffNew, "diff-new", false, "With --diff, print the YAML of new objects (created, existing at start, found by a relist) under their line")
	return c
}

// Complete reads the contexts, the arguments, the namespace and the
// terminal.
func (o *WatchOptions) Complete(args []string) error {
	var err error
	if o.contexts, err = contexts.Names(o.ConfigFlags, o.AllContexts); err != nil {
		return err
	}
	switch {
	case o.contexts != nil && slices.Contains(o.Files.Filenames, "-"):
		return errors.New("-f - reads the manifest once: give a file for several contexts")
	case o.contexts != nil && (len(args) > 0 || o.FromFiles()):
		o.Verb, o.Args = "watch", args // each context reads them itself (runContexts)
	default:
		if err := o.Target.CompleteArgs(args, o.ErrOut, "watch"); err != nil {
			return err
		}
	}
	if o.events, err = parseEvents(o.Events); err != nil {
		return err
	}
	o.color = output.IsTerminal(o.Out) && os.Getenv("NO_COLOR") == ""
	o.progress = output.IsTerminal(o.ErrOut)
	return nil
}

// Validate checks flags that need no server; then it resolves the kinds,
// which needs the server's discovery.
func (o *WatchOptions) Validate() error {
	if err := o.Target.ValidateFlags(); err != nil {
		return err
	}
	if o.MaxEvents < 0 {
		return fmt.Errorf("--max-events must not be negative, got %d", o.MaxEvents)
	}
	if o.Timeout < 0 {
		return fmt.Errorf("--timeout must not be negative, got %s", o.Timeout)
	}
	if err := o.validatePrintFlags(); err != nil {
		return err
	}
	if err := o.validateSince(); err != nil {
		return err
	}
	if o.contexts != nil {
		o.printOpts.Contexts, o.printOpts.SeveralKinds = true, severalKinds(&o.Target)
		o.printOpts.AllNamespaces = o.AllNamespaces || o.FromFiles()
		return nil // each context resolves its own (runContexts)
	}
	return o.resolve()
}

// resolve resolves the kinds through the server's discovery, and keeps
// what they decide of the table.
func (o *WatchOptions) resolve() error {
	if err := o.Target.Resolve(); err != nil {
		return err
	}
	if err := o.FirstFileError(); err != nil {
		return err // an object it cannot watch
	}
	if slices.ContainsFunc(o.Targets, func(tg cli.Wanted) bool { return slices.Contains(tg.Names, "") }) {
		return cli.ErrEmptyName // a name no object has, which get reports and watch would wait for forever
	}
	o.printOpts.SeveralKinds = len(o.Resources) > 1
	// Objects of manifests in several namespaces get the NAMESPACE column
	// too: two of one name would look the same without it.
	o.printOpts.AllNamespaces = o.AllNamespaces || o.SeveralNamespaces()
	return nil
}

// validatePrintFlags checks the print flags and keeps the printer options
// they ask for.
func (o *WatchOptions) validatePrintFlags() error {
	if format := o.PrintFlags.Format(); o.Diff && format != "" && format != "yaml" {
		return fmt.Errorf("--diff prints YAML diffs and cannot be combined with -o %s", format)
	}
	if o.DiffNew && !o.Diff {
		return errors.New("--diff-new prints the YAML of new objects under --diff: give --diff too")
	}
	var err error
	if o.printOpts, err = o.PrintFlags.Options(); err != nil {
		return err
	}
	o.printOpts.Color, o.printOpts.Diff, o.printOpts.DiffNew = o.color, o.Diff, o.DiffNew // AllNamespaces once resolved (Validate)
	if w := o.PrintFlags.SortByWarning(); w != "" {
		fmt.Fprintln(o.ErrOut, "warning: "+w)
	}
	return nil
}

func parseEvents(values []string) (map[output.EventType]bool, error) {
	set := map[output.EventType]bool{}
	for _, v := range values {
		t := output.EventType(strings.ToUpper(strings.TrimSpace(v)))
		if !slices.Contains([]output.EventType{output.Applied, output.Deleted}, t) {
			return nil, fmt.Errorf("--events takes applied and deleted, not %q", v)
		}
		set[t] = true
	}
	return set, nil
}
