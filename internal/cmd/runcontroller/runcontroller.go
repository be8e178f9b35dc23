package runcontroller

import (
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/cli"
	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/completion"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/builtin"
)

const runControllerExample = `  # The built-in controllers
  kubectl reflect run-controller --list

  # Install the CRD of configmap-generator, then run it in every namespace
  kubectl reflect crd install configmap-generator
  kubectl reflect run-controller configmap-generator -A

  # Two controllers in one process (they share one watch per kind), four
  # reconciles at a time, metrics and probes on :8080
  kubectl reflect run-controller configmap-generator,mirror -A --concurrency 4 --metrics-addr :8080

  # What it would write, written nowhere (server-side dry run)
  kubectl reflect run-controller configmap-generator -n web --dry-run`

const runControllerLong = `Run-controller runs built-in controllers from this terminal until it is
interrupted. Each reads the kinds it needs through the process's shared
reflectors (one watch per kind, whatever the number of controllers) and writes
with server-side apply under the field manager kubectl-reflect-NAME.

It runs in the current namespace (-n), or in every namespace with -A. Every
reconcile prints one line on stderr (time, controller, object, what triggered
it, duration, result) unless -q; -v N adds the controllers' logs.

Signals: SIGINT or SIGTERM stops gracefully (reconciles in flight finish,
exit 0); a second one stops at once (exit 130). SIGHUP reconciles every object
again.

With --leader-elect, only the holder of the Lease kubectl-reflect-NAMES (the
controller names, sorted, joined by "-") runs the controllers; the Lease is in
--leader-elect-namespace, by default the current namespace (in a pod, its
own).`

// RunControllerOptions are the flags and resolved inputs of `kubectl
// reflect run-controller`.
type RunControllerOptions struct {
	configFlags *genericclioptions.ConfigFlags
	genericiooptions.IOStreams
	registry *builtin.Registry

	List                 bool
	AllNamespaces        bool
	Concurrency          int
	Debounce             time.Duration
	LeaderElect          bool
	LeaderElectNamespace string
	Lease                LeaseTiming
	MetricsAddr          string
	DryRun               bool
	Quiet                bool

	builtins  []builtin.Spec // the controllers named, in the order given
	namespace string         // the controllers' scope; "" is all
	current   string         // the kubeconfig's namespace (-n), for the Lease
	signals   chan os.Signal // nil: Run listens to the process's
}

// NewCmdRunController is `kubectl reflect run-controller`.
func NewCmdRunController(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams, registry *builtin.Registry) *cobra.Command {
	o := &RunControllerOptions{configFlags: flags, IOStreams: streams, registry: registry}
	c := &cobra.Command{
		Use:               "run-controller NAME[,NAME...] [flags]",
		Short:             "Run built-in controllers until interrupted",
		Long:              runControllerLong,
		Example:           runControllerExample,
		Args:              cobra.ArbitraryArgs, // checked by Complete, with our words
		ValidArgsFunction: completion.Builtins(registry, true),
		RunE:              cli.RunE(o),
	}
	f := c.Flags()
	f.BoolVar(&o.List, "list", false, "List the built-in controllers and exit")
	f.BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "Run the controllers in every namespace")
	f.IntVar(&o.Concurrency, "concurrency", 1, "Reconciles each controller runs at once (never two of one object)")
	f.DurationVar(&o.Debounce, "debounce", 0, "Wait this long after a change before reconciling, so that a burst reconciles once (0: no wait)")
	f.BoolVar(&o.LeaderElect, "leader-elect", false, "Run only while holding the Lease kubectl-reflect-NAMES, so that one of several replicas writes")
	f.StringVar(&o.LeaderElectNamespace, "leader-elect-namespace", "", "Namespace of the leader election Lease (default: the current namespace)")
	addLeaseFlags(f, &o.Lease)
	f.StringVar(&o.MetricsAddr, "metrics-addr", "", "Serve Prometheus /metrics, /healthz and /readyz on this address, e.g. :8080 (default: none)")
	f.BoolVar(&o.DryRun, "dry-run", false, "Send every write as a server-side dry run: nothing is changed")
	f.BoolVarP(&o.Quiet, "quiet", "q", false, "Print no line per reconcile")
	return c
}

// Complete reads the controller names and the namespaces.
func (o *RunControllerOptions) Complete(args []string) error {
	if o.List {
		if len(args) > 0 {
			return errors.New("--list takes no controller names")
		}
		return nil
	}
	if len(args) != 1 {
		return fmt.Errorf("run-controller takes one argument, NAME[,NAME...], got %d; see 'kubectl reflect run-controller --list'", len(args))
	}
	var err error
	if o.builtins, err = o.registry.Select(args[0]); err != nil {
		return err
	}
	if o.current, _, err = o.configFlags.ToRawKubeConfigLoader().Namespace(); err != nil {
		return fmt.Errorf("reading the kubeconfig: %w", err)
	}
	o.namespace = o.current
	if o.AllNamespaces {
		o.namespace = ""
	}
	if o.LeaderElectNamespace == "" {
		o.LeaderElectNamespace = o.current
	}
	return nil
}

// Validate checks the flags.
func (o *RunControllerOptions) Validate() error {
	if o.Concurrency < 1 {
		return fmt.Errorf("--concurrency must be at least 1, got %d", o.Concurrency)
	}
	if err := o.Lease.validate(); err != nil {
		return err
	}
	if o.Debounce < 0 {
		return fmt.Errorf("--debounce must not be negative, got %s", o.Debounce)
	}
	if o.MetricsAddr != "" {
		if _, _, err := net.SplitHostPort(o.MetricsAddr); err != nil {
			return fmt.Errorf("invalid --metrics-addr %q: %w", o.MetricsAddr, err)
		}
	}
	return nil
}
