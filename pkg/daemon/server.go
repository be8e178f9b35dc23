package daemon

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history/recording"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/manager"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/serve"
)

// ErrInterrupted is Run's error when a signal ended it before its first
// lists, or a second signal stopped its controllers at once.
var ErrInterrupted = manager.ErrInterrupted

// Config is what a daemon serves, and how.
type Config struct {
	// REST is the user's client config: the daemon lists and watches as
	// that user, whose identity (Identity) names its files.
	REST *rest.Config
	// Mapper is the API server's RESTMapper: a kind answered 404 is
	// found again through it (kube.RediscoverWith).
	Mapper meta.RESTMapper
	// Resources are cached from the start (and kept), each in Namespace
	// when namespaced; with none, every kind is added on demand.
	Resources []kube.Resource
	// Namespace, if set, is the one namespace where Resources and the
	// controllers are cached (serve -n); "" is every namespace.
	Namespace string
	// KubeconfigNamespace is the namespace of the kubeconfig written.
	KubeconfigNamespace string
	// Port is where it listens at 127.0.0.1 (0: a free one).
	Port int
	// Window is how many changes of each kind a store keeps for watches
	// to resume from (its window; the disk record is the history).
	Window int
	// IdleExit, if not zero, ends the daemon after that long without a
	// request; ReleaseIdle drops a kind added on demand after that long
	// without a request or an open watch of it.
	IdleExit, ReleaseIdle time.Duration
	// Controllers run in the daemon, on its reflectors (pkg/manager),
	// when Controllers.Builtins names some: the caller gives Builtins
	// and Log (a line per reconcile unless it is nil); the daemon sets
	// REST, Set, Namespace, Concurrency (1) and Registry (its /metrics).
	Controllers manager.Config
	// Signals delivers the signals the controllers' stop policy reads
	// (manager.HandleSignals); nil: the process's.
	Signals chan os.Signal
	// Out, if set, is written the daemon's kubeconfig once it serves
	// (--print-kubeconfig); ErrOut its lines (where it serves, warnings).
	Out, ErrOut io.Writer
	// Serving, if set, is given the daemon's kubeconfig once it serves
	// (RunContexts builds its own from those of its daemons).
	Serving func(kubeconfig []byte)
	// Record, if set, writes every change of Resources to a history
	// (pkg/history/recording).
	Record *recording.Config
}

// daemonRun is one run of a daemon.
type daemonRun struct {
	cfg         Config
	published   publishedInfo // its Info, kept true as kinds are added on demand
	historyPath string        // the history it records to, "" when none
}

// Run runs a daemon until ctx ends (SIGINT, SIGTERM), --idle-exit passes,
// a reflector stops for good or a controller fails: it holds the lock of
// its identity (ErrRunning when another daemon does), starts a reflector
// for each resource (of every namespace, or of Namespace), waits for their
// first lists, then serves them (listen.go) and adds kinds on demand.
func Run(ctx context.Context, cfg Config) error {
	resources, err := withNamespaces(cfg)
	if err != nil {
		return err
	}
	cfg.Resources = resources
	d := &daemonRun{cfg: cfg}
	return d.run(ctx)
}

// withNamespaces adds namespaces to the resources cached when a
// namespaced kind is cached: kubectl asks for the namespace of an object
// it did not find (to say which of the two is missing), and namespace
// pickers (k9s) list them. With Namespace set, they are not: they are added
// on demand when asked for (a user allowed one namespace may not list
// them).
func withNamespaces(cfg Config) ([]kube.Resource, error) {
	if cfg.Namespace != "" || !slices.ContainsFunc(cfg.Resources, func(r kube.Resource) bool { return r.Namespaced }) {
		return cfg.Resources, nil
	}
	targets, err := kube.ResolveArgs(cfg.Mapper, []kube.Arg{{Kind: "namespaces"}})
	if err != nil {
		return nil, fmt.Errorf("resolving namespaces: %w", err)
	}
	if ns := targets[0].Resource; !slices.Contains(cfg.Resources, ns) {
		return append(slices.Clip(cfg.Resources), ns), nil
	}
	return cfg.Resources, nil
}

func (d *daemonRun) run(ctx context.Context) error {
	dir, err := Dir()
	if err != nil {
		return err
	}
	lock, err := Acquire(dir, Identity(d.cfg.REST))
	if err != nil {
		return err
	}
	defer lock.Release()
	warnings := &serve.Warnings{} // the API server's about each resource, which the daemon's answers repeat
	rcfg := rest.CopyConfig(d.cfg.REST)
	rcfg.Wrap(warnings.Wrap)
	rc, err := kube.NewRESTClient(rcfg)
	if err != nil {
		return err
	}
	metrics := newServeMetrics()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rec := d.openRecording(ctx)
	defer rec.Close() // when no recorder started
	set := reflector.NewSet(reflector.SetOptions{
		NewClient: reflector.RESTClients(rc, kube.RediscoverWith(d.cfg.Mapper)), Window: d.cfg.Window, Hooks: metrics.hooks(),
		Scope: servedScope, Seed: rec.Seeder(),
	})
	ctrls, err := d.startControllers(ctx, set, metrics, cancel)
	if err != nil {
		return err
	}
	defer ctrls.stop()
	return d.runOn(ctx, cancel, runParts{lock: lock, rc: rc, set: set, rec: rec, ctrls: ctrls, metrics: metrics, warnings: warnings})
}

// runParts are what run made for runOn: the lock, the client, the
// reflectors' Set, the recording (nil when none), the controllers.
type runParts struct {
	lock     *Lock
	rc       rest.Interface
	set      *reflector.Set
	rec      *recording.Recording
	ctrls    controllers
	metrics  *serveMetrics
	warnings *serve.Warnings
}

// runOn starts the reflectors of the kinds given and the recording on
// p's Set, serves them until ctx ends (cancel ends it early) or the
// controllers fail, then stops the recording once its recorders wrote
// what they hold.
func (d *daemonRun) runOn(ctx context.Context, cancel context.CancelFunc, p runParts) error {
	handles := d.acquire(p.set)
	defer func() {
		for _, h := range handles {
			h.Release()
		}
	}()
	dc, err := discovery.NewDiscoveryClientForConfig(d.cfg.REST)
	if err != nil {
		return fmt.Errorf("reading the server's resource types: %w", err)
	}
	known, err := serverResources(ctx, dc)
	if err != nil {
		return err
	}
	all := d.record(ctx, p.rec, p.set, dc, handles, known)
	defer all.Stop()
	defer func() {
		cancel() // the recorders write what they hold, then the history closes
		p.rec.Stop()
	}()
	h, err := d.handler(ctx, p.rc, p.set, dc, known, handles, p.warnings, p.rec.Answers())
	if err != nil {
		return err
	}
	all.Serve(ctx, h)
	p.rec.Announce(d.cfg.Resources, all)
	all.Run(ctx)
	defer h.Close()
	ctrlCtx, stopRunning := context.WithCancel(ctx)
	failed, wait := p.ctrls.run(ctrlCtx)
	err = d.serve(ctx, p.rec.Handler(p.ctrls.mgr.Handler(p.metrics.handler(h))), handles, p.lock, failed)
	stopRunning()
	wait()
	if p.ctrls.forced() {
		return ErrInterrupted
	}
	return err
}

// acquire starts the reflectors of the resources given.
func (d *daemonRun) acquire(set *reflector.Set) []*reflector.Handle {
	handles := make([]*reflector.Handle, 0, len(d.cfg.Resources))
	for _, res := range d.cfg.Resources {
		handles = append(handles, set.Acquire(res, servedScope(d.scopeOf(res))))
	}
	return handles
}

// openRecording opens the history the daemon records to, when it does
// (recording.Open): nil otherwise.
func (d *daemonRun) openRecording(ctx context.Context) *recording.Recording {
	if d.cfg.Record == nil {
		return nil
	}
	return recording.Open(ctx, recording.Options{Config: *d.cfg.Record, Identity: Identity(d.cfg.REST), ErrOut: d.cfg.ErrOut})
}

// record starts recording, when the daemon does: the handles of the kinds
// given and, with recording.Config.AllKinds, every kind of known that the
// user may list and watch (the recording.All it returns, whose kinds are
// settling; nil otherwise). Then the reflectors may start from the
// history.
func (d *daemonRun) record(ctx context.Context, rec *recording.Recording, set *reflector.Set, dc *discovery.DiscoveryClient, handles []*reflector.Handle,
	known []metav1.APIResource) *recording.All {
	if !rec.Begin() {
		rec.Started(ctx)
		return nil
	}
	d.historyPath = rec.Location()
	for _, h := range handles {
		rec.Add(ctx, h)
	}
	all := rec.All(ctx, recording.AllOptions{Set: set, Scope: servedScope, Given: d.cfg.Resources, Known: known,
		Discover: func(ctx context.Context) ([]metav1.APIResource, error) { return serverResources(ctx, dc) },
		Publish:  d.published.recording})
	if all == nil {
		names, _ := resourceNames(d.cfg.Resources)
		d.published.recording(names, nil, false)
	}
	rec.Started(ctx)
	return all
}

// handler waits for the first lists of handles and returns the API's
// handler over them, adding kinds on demand (known: the API server's
// discovery).
func (d *daemonRun) handler(ctx context.Context, rc rest.Interface, set *reflector.Set, dc *discovery.DiscoveryClient, known []metav1.APIResource,
	handles []*reflector.Handle, warnings *serve.Warnings, history serve.History) (*serve.Handler, error) {
	resources, version, err := d.discover(ctx, rc, dc, known, handles)
	if err != nil {
		return nil, err
	}
	if err := reflector.WaitForSync(ctx, handles...); err != nil {
		if ctx.Err() != nil {
			return nil, ErrInterrupted
		}
		return nil, err
	}
	client, err := rest.HTTPClientFor(d.cfg.REST)
	if err != nil {
		return nil, fmt.Errorf("making an HTTP client: %w", err)
	}
	host := strings.TrimSuffix(d.cfg.REST.Host, "/")
	upstream, err := serve.Upstream(client.Transport, host)
	if err != nil {
		return nil, fmt.Errorf("reading the server's address: %w", err)
	}
	return serve.New(serve.Options{
		Resources: resources, Version: version,
		OpenAPI:  serve.OpenAPI(client, host, time.Minute, time.Now),
		Upstream: upstream,
		OnDemand: d.onDemand(set, rc, dc, known),
		Warnings: warnings,
		History:  history,
	}), nil
}

// servedScope is the scope of every reflector of the daemon
// (serve.ServedScope: Tables for kubectl, packed objects for a long life,
// whole objects). The Set rewrites its controllers' scopes to it
// (reflector.SetOptions.Scope): one watch per kind.
var servedScope = serve.ServedScope

// scopeOf is where the daemon caches res from the start: in every
// namespace, or in Namespace.
func (d *daemonRun) scopeOf(res kube.Resource) kube.Scope {
	if !res.Namespaced {
		return kube.Scope{}
	}
	return kube.Scope{Namespace: d.cfg.Namespace}
}

// info is what the daemon publishes of itself.
func (d *daemonRun) info(server string) Info {
	info := Info{PID: os.Getpid(), Server: server, Started: time.Now().UTC(), OnDemand: true, History: d.historyPath}
	info.Resources, info.Kinds = resourceNames(d.everywhere())
	return info
}

// everywhere are the kinds given that are cached in every namespace.
func (d *daemonRun) everywhere() []kube.Resource {
	return slices.DeleteFunc(slices.Clone(d.cfg.Resources), func(r kube.Resource) bool { return d.scopeOf(r).Namespace != "" })
}

// kinds names what the daemon serves, for its first line.
func (d *daemonRun) kinds() string {
	if d.published.recordsAll() {
		return "every kind"
	}
	if len(d.cfg.Resources) == 0 {
		return "every kind on demand,"
	}
	kinds := make([]string, len(d.cfg.Resources))
	for i, r := range d.cfg.Resources {
		kinds[i] = r.String()
		if ns := d.scopeOf(r).Namespace; ns != "" {
			kinds[i] += " -n " + ns
		}
	}
	return strings.Join(kinds, ", ")
}
