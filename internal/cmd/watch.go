package cmd

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/output"
)

const watchExample = `  # Stream config maps, secrets and deployments of every namespace
  kubectl reflect watch configmaps,secrets,deploy.apps -A

  # Two config maps by name, waiting for the one that does not exist yet
  kubectl reflect watch cm settings feature-flags -n web

  # Only changes from now on, as NDJSON, for one labelled set
  kubectl reflect watch cm -l app=web --watch-only -o json

  # Wait for the next deletion of a pod, then exit
  kubectl reflect watch pod/web-0 --events deleted --max-events 1`

// WatchOptions are the flags and resolved inputs of `kubectl reflect watch`.
type WatchOptions struct {
	target
	genericiooptions.IOStreams

	Output            string
	NoHeaders         bool
	WatchOnly         bool
	Events            []string
	MaxEvents         int
	Timeout           time.Duration
	ShowManagedFields bool
	Diff              bool

	events   map[output.EventType]bool
	color    bool
	progress bool
}

// NewCmdWatch is `kubectl reflect watch`.
func NewCmdWatch(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &WatchOptions{target: target{configFlags: flags}, IOStreams: streams}
	c := &cobra.Command{
		Use:     "watch (KIND[,KIND...] [NAME...] | KIND/NAME...) [flags]",
		Short:   "Stream what is applied to and deleted from one or more kinds",
		Example: watchExample,
		Long: `Watch lists the objects of each kind, prints them as APPLIED, then prints every
change as APPLIED or DELETED. It never stops on its own: when a watch ends it
resumes from the last resourceVersion; when that is too old (410 Gone) it
relists and prints only what changed meanwhile, deletions included.`,
		Args:              cobra.ArbitraryArgs, // kubectl's checks and words: target.complete and kube.ParseArgs
		ValidArgsFunction: completeKindArgs(flags, -1),
		RunE:              runE(o),
	}
	f := c.Flags()
	o.target.addFlags(f, "Watch")
	f.StringVarP(&o.Output, "output", "o", "", "Output format: wide, json (NDJSON), yaml, name, jsonpath=..., custom-columns=..., go-template=...")
	f.BoolVar(&o.NoHeaders, "no-headers", false, "Print tables without headers")
	f.BoolVar(&o.WatchOnly, "watch-only", false, "Skip the objects that exist at start; print changes only")
	f.StringSliceVar(&o.Events, "events", []string{"applied", "deleted"}, "Event types to print: applied, deleted")
	f.IntVar(&o.MaxEvents, "max-events", 0, "Exit after printing this many events (0: no limit)")
	f.DurationVar(&o.Timeout, "timeout", 0, "Exit after this long (0: never), e.g. 30s")
	f.BoolVar(&o.ShowManagedFields, "show-managed-fields", false, "Keep metadata.managedFields in json and yaml output")
	f.BoolVar(&o.Diff, "diff", false, "Print changes to objects already seen as unified diffs of their YAML (resourceVersion, managedFields and generation left out)")
	return c
}

// Complete reads the arguments, the namespace and the terminal.
func (o *WatchOptions) Complete(args []string) error {
	if err := o.target.complete(args, o.ErrOut, "watch"); err != nil {
		return err
	}
	var err error
	if o.events, err = parseEvents(o.Events); err != nil {
		return err
	}
	o.color = isTerminal(o.Out) && os.Getenv("NO_COLOR") == ""
	o.progress = isTerminal(o.ErrOut)
	return nil
}

// Validate checks flags that need no server; then it resolves the kinds,
// which needs the server's discovery.
func (o *WatchOptions) Validate() error {
	if err := o.target.validate(); err != nil {
		return err
	}
	if o.MaxEvents < 0 {
		return fmt.Errorf("--max-events must not be negative, got %d", o.MaxEvents)
	}
	if o.Timeout < 0 {
		return fmt.Errorf("--timeout must not be negative, got %s", o.Timeout)
	}
	if err := output.ValidateFormat(o.Output); err != nil {
		return err
	}
	if o.Diff && o.Output != "" && o.Output != "yaml" {
		return fmt.Errorf("--diff prints YAML diffs and cannot be combined with -o %s", o.Output)
	}
	if err := o.target.resolve(); err != nil {
		return err
	}
	if slices.ContainsFunc(o.targets, func(tg kube.Target) bool { return slices.Contains(tg.Names, "") }) {
		return errEmptyName // a name no object has, which get reports and watch would wait for forever
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

func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}
