package get

import (
	"errors"
	"fmt"
	"slices"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	kubectlget "k8s.io/kubectl/pkg/cmd/get"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/cli"
	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/completion"
	"github.com/kubectl-reflect/kubectl-reflect/internal/contexts"
)

const getExample = `  # List config maps, secrets and deployments of every namespace, as kubectl would
  kubectl reflect get configmaps,secrets,deploy.apps -A

  # One object as YAML
  kubectl reflect get cm/settings -o yaml

  # What the category "all" holds in a namespace, and two objects of different kinds
  kubectl reflect get all -n web
  kubectl reflect get cm/settings secret/tls -n web

  # Sorted, with a label as a column
  kubectl reflect get pods -L app --sort-by .metadata.creationTimestamp

  # The objects of a manifest, each in its namespace
  kubectl reflect get -f app.yaml`

// GetOptions are the flags and resolved inputs of `kubectl reflect get`.
type GetOptions struct {
	cli.Target
	genericiooptions.IOStreams

	PrintFlags     *kubectlget.PrintFlags
	IgnoreNotFound bool
	// ChunkSize is kubectl's --chunk-size: kubectl prints each page of a
	// list as a table of its own, aligned as it comes (see output.PrintTables).
	ChunkSize int64
	getWatchFlags
	raw rawGet // --raw
	// ServerPrint is kubectl's --server-print: false prints NAME and AGE
	// (and labels), kubectl's own table for a kind, not the server's
	// columns.
	ServerPrint bool
	// Subresource is kubectl's --subresource: named objects' status or
	// scale, read with a GET each (see fetch).
	Subresource string
	// contexts are the kubeconfig contexts read when several are
	// (contexts.Names): each then reads on its own (runContexts).
	contexts []string
	atFlags
}

// NewCmdGet is `kubectl reflect get`.
func NewCmdGet(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &GetOptions{Target: cli.Target{ConfigFlags: flags}, IOStreams: streams, PrintFlags: kubectlget.NewGetPrintFlags()}
	c := &cobra.Command{
		Use:     "get (KIND[,KIND...] [NAME...] | KIND/NAME... | -f FILENAME | -k DIR) [flags]",
		Short:   "Print objects from a reflector's store, with kubectl's columns and formats",
		Example: getExample,
		Long: `Get runs a reflector for each kind, waits for its first list and prints the
store's snapshot with the server's printer columns, exactly as kubectl get does.
With -w or --watch-only it is "kubectl reflect watch" with get's flags.`,
		Args:              cobra.ArbitraryArgs, // kubectl's checks and words: cli.Target.CompleteArgs and kube.ParseArgs
		ValidArgsFunction: completion.KindArgs(flags, -1),
		RunE:              getRunE(o),
	}
	o.Target.AddFlags(c.Flags(), "List")
	o.PrintFlags.AddFlags(c)
	o.getWatchFlags.addFlags(c)
	c.Flags().BoolVar(&o.IgnoreNotFound, "ignore-not-found", false, "If the requested object does not exist the command will return exit code 0.")
	c.Flags().BoolVar(&o.ServerPrint, "server-print", true, "If true, print the server's columns (its Table), as kubectl does; false prints NAME and AGE.")
	cmdutil.AddSubresourceFlags(c, &o.Subresource, "If specified, gets the subresource of the requested objects (status, scale), with a GET each, as kubectl does.")
	c.Flags().StringVar(&o.raw.Path, "raw", "", "Raw URI to request from the API server, written as it answers, as kubectl get --raw does.")
	c.Flags().StringVar(&o.At, "at", "", "Print the state at a past moment, from the history serve --record wrote: a time (2026-12-04T07:00:00Z), a duration ago (90m) or a resourceVersion")
	c.Flags().BoolVar(&o.atFlags.Strict, "strict", false, "With --at: fail where the state at a time is not known exactly (a change made while nothing recorded, dated by the server only within a window), rather than print it as before the change with a warning")
	c.Flags().StringVar(&o.atFlags.DB, "history-db", "", "The history --at reads, a file or a postgres:// URL (default: the running daemon's, else the default of the cluster and user)")
	c.Flags().Int64Var(&o.ChunkSize, "chunk-size", 500, "Print large lists in chunks of this many objects, each aligned as kubectl aligns the pages it lists (with --list-mode=paged, list them so too). Pass 0 to print one table.")
	return c
}

// Complete reads the contexts, the arguments and the namespace.
func (o *GetOptions) Complete(args []string) error {
	var err error
	if o.contexts, err = contexts.Names(o.ConfigFlags, o.AllContexts); err != nil {
		return err
	}
	if o.contexts != nil && (len(args) > 0 || o.FromFiles()) {
		return o.completeContexts(args)
	}
	return o.Target.CompleteArgs(args, o.ErrOut, "get")
}

// Validate checks the flags, then resolves the kinds.
func (o *GetOptions) Validate() error {
	if err := o.Target.ValidateFlags(); err != nil {
		return err
	}
	pf := o.PrintFlags.Copy()
	if _, err := pf.ToPrinter(); err != nil {
		return err
	}
	if o.ChunkSize < 0 {
		return fmt.Errorf("invalid --chunk-size %d: must be 0 or more", o.ChunkSize)
	}
	if s := o.sortBy(); s != "" {
		if _, err := kubectlget.RelaxedJSONPathExpression(s); err != nil {
			return fmt.Errorf("invalid --sort-by %q: %w", s, err)
		}
	}
	if err := o.validateAt(); err != nil {
		return err
	}
	if o.contexts != nil {
		return nil // each context resolves its own (runContexts)
	}
	return o.resolve()
}

// resolve resolves the kinds through the server's discovery.
func (o *GetOptions) resolve() error {
	if err := o.Target.Resolve(); err != nil {
		return err
	}
	if o.FromFiles() {
		o.Subresource = "" // kubectl get -f reads the objects themselves, whatever --subresource says
	}
	if o.Subresource != "" && slices.ContainsFunc(o.Targets, func(tg cli.Wanted) bool { return tg.Err == nil && len(tg.Names) == 0 }) {
		return errors.New("subresource cannot be used when bulk resources are specified")
	}
	return nil
}

func (o *GetOptions) sortBy() string { return *o.PrintFlags.HumanReadableFlags.SortBy }

// serverColumns says whether a table has the server's columns (its Table
// with every object), or kubectl's own NAME and AGE (--server-print=false).
func (o *GetOptions) serverColumns() bool { return o.humanReadable() && o.ServerPrint }

// namesOnly says whether get prints names (-o name) that are the
// resource's kind and the objects' names, which their metadata alone
// gives; a subresource's are its own kind's (scale.autoscaling/NAME).
func (o *GetOptions) namesOnly() bool {
	return *o.PrintFlags.OutputFormat == "name" && o.Subresource == ""
}

// labelColumns says whether a table shows labels (--show-labels, -L).
func (o *GetOptions) labelColumns() bool {
	h := o.PrintFlags.HumanReadableFlags
	return *h.ShowLabels || len(*h.ColumnLabels) > 0
}

// humanReadable is true for the table formats (the default and wide).
func (o *GetOptions) humanReadable() bool {
	f := *o.PrintFlags.OutputFormat
	return f == "" || f == "wide"
}
