package serve

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/cli"
	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/completion"
	"github.com/kubectl-reflect/kubectl-reflect/internal/contexts"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/builtin"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/daemon"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/manager"
)

const serveExample = `  # Cache config maps and secrets of every namespace, and point kubectl at the cache
  kubectl reflect serve cm,secrets
  kubectl --kubeconfig "$XDG_RUNTIME_DIR/kubectl-reflect/serve/<identity hash>.kubeconfig" get cm -A -w

  # What the daemon of the current cluster and user caches; stop it
  kubectl reflect serve status
  kubectl reflect serve stop

  # Print the cache's kubeconfig on stdout
  kubectl reflect serve cm --print-kubeconfig > cache.kubeconfig

  # Cache the pods and config maps of one namespace (all a user may read, say)
  kubectl reflect serve pods,cm -n web

  # Serve two clusters, each behind its context, and their merged view
  kubectl reflect serve cm --context staging,production
  kubectl --kubeconfig "$XDG_RUNTIME_DIR/kubectl-reflect/serve/merged-<hash>.kubeconfig" --context merged get cm

  # Record every change of config maps and deployments, for get --at and history (kept a week)
  kubectl reflect serve cm,deploy --record

  # Record every kind you may list and watch (nodes, leases, events, custom resources created later too)
  kubectl reflect serve --record

  # Run a built-in controller in the daemon, on its caches (it serves the kinds the controller reads)
  kubectl reflect serve --controllers configmap-generator`

// ServeOptions are the flags and resolved inputs of `kubectl reflect serve`.
type ServeOptions struct {
	cli.Target
	genericiooptions.IOStreams

	Port            int
	PrintKubeconfig bool
	// Window is how many changes of each kind the cache keeps for watches
	// to resume from (the --history flag, named before the disk record).
	Window int
	// IdleExit, if not zero, ends the daemon after that long without a
	// request.
	IdleExit time.Duration
	// ReleaseIdle, if not zero, drops a kind added on demand after that
	// long without a request or an open watch of it.
	ReleaseIdle time.Duration
	serveControllers
	record recordFlags
	// only is the namespace of -n, where the kinds given (and controllers)
	// are cached; "" is every namespace.
	only string
	// contexts are the kubeconfig contexts served when several are
	// (--context a,b, --all-contexts), members each one's options.
	contexts []string
	members  []*ServeOptions
}

const serveLong = `Serve runs a reflector for each kind (every namespace) and answers kubectl,
client-go programs and any API client from its stores: discovery, get, list
(selectors, paging, Tables) and watch (resumed, bookmarks, streaming lists).
Any other kind that the API server lists and watches, a client's first
request of it adds (on demand; the API server's 403 when the user may not
list it; for a user allowed some namespaces only, in the namespace asked);
with no KIND, every kind is added so. One no request has used for
--release-idle, with no watch open, is released until it is asked again.
With -n NS, the kinds given (and --controllers) are cached in namespace NS
alone: for a user allowed that namespace only, or to keep less; the
kubeconfig written has NS too. -A (every namespace) is the default, and
overrides -n as kubectl's does.
It listens on 127.0.0.1 with TLS and a random bearer token, writes a
kubeconfig for itself (0600) and prints its path; writes are refused.

With --context a,b (or --all-contexts) it runs a daemon per context (contexts
of one cluster and user share one) and serves their merged view: the
kubeconfig it writes has a context per cluster, named as the kubeconfig's,
and "merged", whose lists and tables have a Context column and whose
watches resume exactly across the clusters (a composite resourceVersion).

With --record, it also writes every change of the kinds given to a history
on disk (one SQLite file per cluster and user under
$XDG_STATE_HOME/kubectl-reflect/history, or --history-db; Secrets' values
hashed unless --record-secret-data; kept --record-retention), which
"kubectl reflect get --at", "kubectl reflect history" and "kubectl reflect
watch --since" read. Started again, it records what changed while it was
away. With --record and no KIND, it records every kind the API server lists
and watches that you may (as "kubectl api-resources --verbs=list,watch"
lists them: nodes, leases and events too), in its preferred version, and
those it serves later (a CRD established, found within seconds): all but
events.k8s.io's events (the same objects as the core events recorded) and
v1 endpoints (deprecated; their addresses are in the EndpointSlices
recorded). The kinds the API server refuses you (403) are named in one line
on stderr and skipped; "serve status" shows what is recorded.

With --controllers, it also runs built-in controllers (those of
run-controller) in every namespace (with -n, in NS) on the same caches: the
kinds they read are served too, one watch per kind for both. Each reconcile
prints a line on stderr unless -q; /readyz waits for the controllers to be
ready, and a controller that fails stops the daemon. Signals are
run-controller's: SIGINT or SIGTERM stops gracefully (reconciles in flight
finish), a second one stops at once (exit 130), SIGHUP reconciles every
object again.`

// NewCmdServe is `kubectl reflect serve`.
func NewCmdServe(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams, registry *builtin.Registry) *cobra.Command {
	o := &ServeOptions{Target: cli.Target{ConfigFlags: flags, ListMode: "whole", NoDaemon: true}, IOStreams: streams}
	o.registry = registry
	c := &cobra.Command{
		Use:               "serve [KIND[,KIND...]] [flags]",
		Short:             "Serve a local, read-only, Kubernetes-API-compatible cache of some kinds",
		Example:           serveExample,
		Long:              serveLong,
		Args:              cobra.ArbitraryArgs,
		ValidArgsFunction: completion.KindArgs(flags, -1),
		RunE:              cli.RunE(o),
	}
	c.AddCommand(newCmdServeStatus(flags, streams), newCmdServeStop(flags, streams))
	o.addFlags(c.Flags())
	return c
}

// addFlags binds serve's flags to o.
func (o *ServeOptions) addFlags(f *pflag.FlagSet) {
	f.BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "Cache the kinds in every namespace (the default; as kubectl's, it overrides -n and the context's namespace)")
	f.BoolVar(&o.AllContexts, "all-contexts", false, "Serve every context of the kubeconfig, and their merged view (--context also takes several, comma-separated)")
	f.IntVar(&o.Port, "port", 0, "Port to listen on at 127.0.0.1 (0: a free one; with several contexts, the merged view's)")
	f.BoolVar(&o.PrintKubeconfig, "print-kubeconfig", false, "Print the cache's kubeconfig on stdout once it serves")
	f.IntVar(&o.Window, "history", 4096, "Changes of each kind kept for watches to resume from")
	f.DurationVar(&o.IdleExit, "idle-exit", 0, "Exit after no request for this long, e.g. 30m (0: never)")
	f.DurationVar(&o.ReleaseIdle, "release-idle", daemon.DefaultReleaseIdle, "Stop caching a kind added on demand after no request or open watch of it for this long (0: keep every one); the kinds given are kept")
	o.serveControllers.addFlags(f)
	o.record.addFlags(f)
}

// Complete reads the arguments (and the kinds --controllers read) and the
// namespace of the written kubeconfig.
func (o *ServeOptions) Complete(args []string) error {
	var err error
	if o.contexts, err = contexts.Names(o.ConfigFlags, o.AllContexts); err != nil {
		return err
	}
	if o.contexts != nil {
		return o.completeContexts(args)
	}
	o.record.all = len(args) == 0 // the kinds --controllers read are recorded with every other
	args, err = o.serveControllers.complete(args)
	if err != nil {
		return err
	}
	if len(args) > 0 { // none: every kind on demand
		if err := o.Target.CompleteArgs(args, o.ErrOut, "serve"); err != nil {
			return err
		}
	}
	ns, explicit, err := o.ConfigFlags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return fmt.Errorf("reading the kubeconfig: %w", err)
	}
	o.Namespace = ns // the written kubeconfig's
	if explicit && !o.AllNamespaces {
		o.only = ns
	}
	return nil
}

// Validate checks the flags, then resolves the kinds.
func (o *ServeOptions) Validate() error {
	if o.Port < 0 || o.Port > 65535 {
		return fmt.Errorf("invalid --port %d: want 0 to 65535", o.Port)
	}
	if o.IdleExit < 0 {
		return fmt.Errorf("invalid --idle-exit %s: want 0 or more", o.IdleExit)
	}
	if o.ReleaseIdle < 0 {
		return fmt.Errorf("invalid --release-idle %s: want 0 or more", o.ReleaseIdle)
	}
	if o.Window < 1 {
		return fmt.Errorf("invalid --history %d: want 1 or more", o.Window)
	}
	if err := o.record.validate(o.contexts != nil, o.only); err != nil {
		return err
	}
	if o.contexts != nil {
		return o.validateContexts()
	}
	if err := o.resolveKinds(); err != nil {
		return err
	}
	if o.Named() {
		return errors.New("serve caches whole kinds: name no objects")
	}
	return nil
}

// Run runs the daemon (pkg/daemon) until ctx ends (SIGINT, SIGTERM) or it
// stops for good.
func (o *ServeOptions) Run(ctx context.Context) error {
	var err error
	if o.contexts != nil {
		err = o.runContexts(ctx)
	} else {
		cfg := o.config()
		if o.PrintKubeconfig {
			cfg.Out = o.Out
		}
		err = daemon.Run(ctx, cfg)
	}
	if errors.Is(err, daemon.ErrInterrupted) {
		return cli.ErrInterrupted
	}
	return err
}

// config is the daemon's Config.
func (o *ServeOptions) config() daemon.Config {
	cfg := daemon.Config{
		REST: o.Config, Mapper: o.Mapper, Resources: o.Resources, Namespace: o.only, KubeconfigNamespace: o.Namespace,
		Port: o.Port, Window: o.Window, IdleExit: o.IdleExit, ReleaseIdle: o.ReleaseIdle,
		Controllers: manager.Config{Builtins: o.builtins}, Signals: o.signals, ErrOut: o.ErrOut, Record: o.record.config(),
	}
	if !o.Quiet {
		cfg.Controllers.Log = o.ErrOut
	}
	return cfg
}

// resolveKinds resolves the kinds to cache from the start; with none,
// every kind is cached on demand, and only the client config and the
// server's kinds are read.
func (o *ServeOptions) resolveKinds() error {
	if len(o.Args) > 0 {
		return o.Target.Resolve()
	}
	var err error
	if o.Config, err = o.ConfigFlags.ToRESTConfig(); err != nil {
		return fmt.Errorf("reading the kubeconfig: %w", err)
	}
	if o.Mapper, err = o.ConfigFlags.ToRESTMapper(); err != nil {
		return fmt.Errorf("reading the server's resource types: %w", err)
	}
	return nil
}
