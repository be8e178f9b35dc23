package cmd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/tidwall/gjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/daemon"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/serve"
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

  # Run a built-in controller in the daemon, on its caches (it serves the kinds the controller reads)
  kubectl reflect serve --controllers configmap-generator`

// ServeOptions are the flags and resolved inputs of `kubectl reflect serve`.
type ServeOptions struct {
	target
	genericiooptions.IOStreams

	Port            int
	PrintKubeconfig bool
	// History is how many changes of each kind the cache keeps for watches
	// to resume from.
	History int
	// IdleExit, if not zero, ends the daemon after that long without a
	// request.
	IdleExit time.Duration
	// ReleaseIdle, if not zero, drops a kind added on demand after that
	// long without a request or an open watch of it.
	ReleaseIdle time.Duration
	serveControllers
	// only is the namespace of -n, where the kinds given (and controllers)
	// are cached; "" is every namespace.
	only string

	published publishedInfo // the daemon's Info, kept true as kinds are added on demand
}

// NewCmdServe is `kubectl reflect serve`.
func NewCmdServe(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &ServeOptions{target: target{configFlags: flags, ListMode: "whole", NoDaemon: true}, IOStreams: streams}
	c := &cobra.Command{
		Use:     "serve [KIND[,KIND...]] [flags]",
		Short:   "Serve a local, read-only, Kubernetes-API-compatible cache of some kinds",
		Example: serveExample,
		Long: `Serve runs a reflector for each kind (every namespace) and answers kubectl,
client-go programs and any API client from its stores: discovery, get, list
(selectors, paging, Tables) and watch (resumed, bookmarks, streaming lists).
Any other kind that the API server lists and watches, a client's first
request of it adds (on demand; the API server's 403 when the user may not
list it; for a user allowed some namespaces only, in the namespace asked);
with no KIND, every kind is added so. One no request has used for
--release-idle, with no watch open, is released until it is asked again.
With -n NS, the kinds given (and --controllers) are cached in namespace NS
alone: for a user allowed that namespace only, or to keep less; the
kubeconfig written has NS too.
It listens on 127.0.0.1 with TLS and a random bearer token, writes a
kubeconfig for itself (0600) and prints its path; writes are refused.

With --controllers, it also runs built-in controllers (those of
run-controller) in every namespace (with -n, in NS) on the same caches: the
kinds they read are served too, one watch per kind for both. Each reconcile
prints a line on stderr unless -q; /readyz waits for the controllers to be
ready, and a controller that fails stops the daemon. Signals are
run-controller's: SIGINT or SIGTERM stops gracefully (reconciles in flight
finish), a second one stops at once (exit 130), SIGHUP reconciles every
object again.`,
		Args:              cobra.ArbitraryArgs,
		ValidArgsFunction: completeKindArgs(flags, -1),
		RunE:              runE(o),
	}
	c.AddCommand(newCmdServeStatus(flags, streams), newCmdServeStop(flags, streams))
	c.Flags().IntVar(&o.Port, "port", 0, "Port to listen on at 127.0.0.1 (0: a free one)")
	c.Flags().BoolVar(&o.PrintKubeconfig, "print-kubeconfig", false, "Print the cache's kubeconfig on stdout once it serves")
	c.Flags().IntVar(&o.History, "history", 4096, "Changes of each kind kept for watches to resume from")
	c.Flags().DurationVar(&o.IdleExit, "idle-exit", 0, "Exit after no request for this long, e.g. 30m (0: never)")
	c.Flags().DurationVar(&o.ReleaseIdle, "release-idle", defaultReleaseIdle, "Stop caching a kind added on demand after no request or open watch of it for this long (0: keep every one); the kinds given are kept")
	o.serveControllers.addFlags(c.Flags())
	return c
}

// Complete reads the arguments (and the kinds --controllers read) and the
// namespace of the written kubeconfig.
func (o *ServeOptions) Complete(args []string) error {
	args, err := o.serveControllers.complete(args)
	if err != nil {
		return err
	}
	if len(args) > 0 { // none: every kind on demand
		if err := o.target.complete(args, o.ErrOut, "serve"); err != nil {
			return err
		}
	}
	ns, explicit, err := o.configFlags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return fmt.Errorf("reading the kubeconfig: %w", err)
	}
	o.namespace = ns // the written kubeconfig's
	if explicit {
		o.only = ns
	}
	return nil
}

// scopeOf is where the daemon caches res from the start: in every
// namespace, or in the one of -n.
func (o *ServeOptions) scopeOf(res kube.Resource) kube.Scope {
	if !res.Namespaced {
		return kube.Scope{}
	}
	return kube.Scope{Namespace: o.only}
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
	if o.History < 1 {
		return fmt.Errorf("invalid --history %d: want 1 or more", o.History)
	}
	if err := o.resolveKinds(); err != nil {
		return err
	}
	if o.named() {
		return errors.New("serve caches whole kinds: name no objects")
	}
	return o.addNamespaces()
}

// addNamespaces caches namespaces too when a namespaced kind is cached:
// kubectl asks for the namespace of an object it did not find (to say
// which of the two is missing), and namespace pickers (k9s) list them.
// With -n, they are not: they are added on demand when asked for (a user
// allowed one namespace may not list them).
func (o *ServeOptions) addNamespaces() error {
	if o.only != "" || !slices.ContainsFunc(o.resources, func(r kube.Resource) bool { return r.Namespaced }) {
		return nil
	}
	targets, err := kube.ResolveArgs(o.mapper, []kube.Arg{{Kind: "namespaces"}})
	if err != nil {
		return fmt.Errorf("resolving namespaces: %w", err)
	}
	if ns := targets[0].Resource; !slices.Contains(o.resources, ns) {
		o.resources = append(o.resources, ns)
	}
	return nil
}

// Run starts the reflectors, waits for their first lists, then serves until
// ctx ends (SIGINT, SIGTERM) or a reflector stops for good.
func (o *ServeOptions) Run(ctx context.Context) error {
	dir, err := daemon.Dir()
	if err != nil {
		return err
	}
	lock, err := daemon.Acquire(dir, daemon.Identity(o.config))
	if err != nil {
		return err
	}
	defer lock.Release()
	warnings := &serve.Warnings{} // the API server's about each resource, which the daemon's answers repeat
	cfg := rest.CopyConfig(o.config)
	cfg.Wrap(warnings.Wrap)
	rc, err := kube.NewRESTClient(cfg)
	if err != nil {
		return err
	}
	metrics := newServeMetrics()
	set := reflector.NewSet(reflector.SetOptions{
		NewClient: reflector.RESTClients(rc, kube.RediscoverWith(o.mapper)), History: o.History, Hooks: metrics.hooks(),
		Scope: servedScope,
	})
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	force := make(chan struct{})
	stopControllers, err := o.startControllers(ctx, set, metrics.registry, force)
	if err != nil {
		return err
	}
	defer stopControllers()
	forced, stopSignals := o.handleControllerSignals(cancel, force)
	defer stopSignals()
	var leases []*reflector.Lease
	defer func() {
		for _, l := range leases {
			l.Release()
		}
	}()
	for _, res := range o.resources {
		leases = append(leases, set.Acquire(res, servedScope(o.scopeOf(res))))
	}
	dc, err := discovery.NewDiscoveryClientForConfig(o.config)
	if err != nil {
		return fmt.Errorf("reading the server's resource types: %w", err)
	}
	known, err := serverResources(ctx, dc)
	if err != nil {
		return err
	}
	resources, version, err := o.discover(ctx, rc, dc, known, leases)
	if err != nil {
		return err
	}
	if err := reflector.WaitForSync(ctx, leases...); err != nil {
		if ctx.Err() != nil {
			return errInterrupted
		}
		return err
	}
	client, err := rest.HTTPClientFor(o.config)
	if err != nil {
		return fmt.Errorf("making an HTTP client: %w", err)
	}
	host := strings.TrimSuffix(o.config.Host, "/")
	upstream, err := serve.Upstream(client.Transport, host)
	if err != nil {
		return fmt.Errorf("reading the server's address: %w", err)
	}
	h := serve.New(serve.Options{
		Resources: resources, Version: version,
		OpenAPI:  serve.OpenAPI(client, host, time.Minute, time.Now),
		Upstream: upstream,
		OnDemand: o.onDemand(set, rc, dc, known),
		Warnings: warnings,
	})
	defer h.Close()
	ctrlCtx, stopRunning := context.WithCancel(ctx)
	failed, wait := o.runControllers(ctrlCtx)
	err = o.serve(ctx, withControllers(metrics.handler(h), o.ctrls, metrics.registry), leases, lock, failed)
	stopRunning()
	wait()
	if forced() {
		return errInterrupted
	}
	return err
}

// discover picks what the API server's discovery (known) says of each
// resource, and reads its version.
func (o *ServeOptions) discover(ctx context.Context, rc rest.Interface, dc discovery.DiscoveryInterface, known []metav1.APIResource, leases []*reflector.Lease) ([]serve.Resource, []byte, error) {
	var out []serve.Resource
	for _, l := range leases {
		res := l.Resource()
		def := definitionOf(ctx, rc, res)
		out = append(out, serve.Resource{
			Source: l, Namespace: o.scopeOf(res).Namespace, Discovery: discoveryOf(known, res),
			SelectableFields: def.SelectableFields, DateColumns: def.DateColumns,
		})
	}
	version, err := dc.RESTClient().Get().AbsPath("/version").DoRaw(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the server's version: %w", err)
	}
	return out, version, nil
}

// definitionOf is what the daemon reads in res's definition, if it is a
// custom resource the user may read the definition of (nothing otherwise):
// the field labels it makes selectable, and its printer columns of type
// date; as a serve.Started whose Source is left to the caller.
func definitionOf(ctx context.Context, rc rest.Interface, res kube.Resource) (def serve.Started) {
	if !strings.Contains(res.GVR.Group, ".") {
		return def // built-in groups have no definition to read
	}
	raw, err := rc.Get().AbsPath("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", res.GVR.Resource+"."+res.GVR.Group).DoRaw(ctx)
	if err != nil {
		return def // not a custom resource, or not readable: metadata.name and metadata.namespace only
	}
	version := gjson.GetBytes(raw, fmt.Sprintf("spec.versions.#(name==%q)", res.GVR.Version))
	for _, p := range version.Get("selectableFields.#.jsonPath").Array() {
		def.SelectableFields = append(def.SelectableFields, strings.TrimPrefix(p.Str, "."))
	}
	for _, col := range version.Get("additionalPrinterColumns").Array() {
		if col.Get("type").Str != "date" {
			continue
		}
		if def.DateColumns == nil {
			def.DateColumns = map[string]string{}
		}
		def.DateColumns[col.Get("name").Str] = col.Get("jsonPath").Str
	}
	return def
}

// serve listens, publishes its kubeconfig and Info in lock's files, and
// serves h until ctx ends, a reflector stops for good or a controller fails
// (failed); then it ends the watches and stops listening (Run's caller
// removes the files).
func (o *ServeOptions) serve(ctx context.Context, h http.Handler, leases []*reflector.Lease, lock *daemon.Lock, failed <-chan error) error {
	cred, err := newServeCredentials()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(o.Port)))
	if err != nil {
		return fmt.Errorf("listening: %w", err)
	}
	server := "https://" + ln.Addr().String()
	kubeconfig, err := serveKubeconfig(server, o.namespace, cred)
	if err == nil {
		err = o.published.publish(lock, kubeconfig, o.info(server))
	}
	if err != nil {
		ln.Close()
		return err
	}
	path := lock.Kubeconfig

	serveCtx, stop := context.WithCancel(ctx)
	defer stop()
	idle := newIdleExit(o.IdleExit)
	defer idle.Stop()
	srv := &http.Server{
		Handler:           idle.wrap(serve.WithToken(h, cred.token)),
		TLSConfig:         cred.tlsConfig(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		BaseContext:       func(net.Listener) context.Context { return serveCtx }, // ending it ends the watches
		ErrorLog:          discardLog(),
	}
	fmt.Fprintf(o.ErrOut, "Serving %s read-only at %s\nkubeconfig: %s\n", o.kinds(), server, path)
	if o.PrintKubeconfig {
		if _, err := o.Out.Write(kubeconfig); err != nil {
			ln.Close()
			return fmt.Errorf("printing the kubeconfig: %w", err)
		}
	}
	served := make(chan error, 2)
	go func() { served <- srv.ServeTLS(ln, "", "") }()
	o.listenSocket(srv, lock, served)
	var runErr error
	select {
	case <-ctx.Done():
	case <-idle.Idle():
		fmt.Fprintf(o.ErrOut, "No request for %s: exiting\n", o.IdleExit)
	case err := <-served:
		runErr = fmt.Errorf("serving: %w", err)
	case err := <-stopped(leases):
		runErr = err
	case err := <-failed:
		runErr = err
	}
	stop()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutdownCtx)
	return runErr
}

// stopped receives the error of the first reflector that stops for good.
func stopped(leases []*reflector.Lease) <-chan error {
	ch := make(chan error, len(leases))
	for _, l := range leases {
		go func() {
			<-l.Done()
			if err := l.Err(); err != nil {
				ch <- err
			}
		}()
	}
	return ch
}

// info is what the daemon publishes of itself.
func (o *ServeOptions) info(server string) daemon.Info {
	info := daemon.Info{PID: os.Getpid(), Server: server, Started: time.Now().UTC(), OnDemand: true}
	info.Resources, info.Kinds = resourceNames(o.everywhere())
	return info
}

// everywhere are the kinds given that are cached in every namespace.
func (o *ServeOptions) everywhere() []kube.Resource {
	return slices.DeleteFunc(slices.Clone(o.resources), func(r kube.Resource) bool { return o.scopeOf(r).Namespace != "" })
}

func (o *ServeOptions) kinds() string {
	if len(o.resources) == 0 {
		return "every kind on demand,"
	}
	kinds := make([]string, len(o.resources))
	for i, r := range o.resources {
		kinds[i] = r.String()
		if ns := o.scopeOf(r).Namespace; ns != "" {
			kinds[i] += " -n " + ns
		}
	}
	return strings.Join(kinds, ", ")
}
