package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/builtin"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/controller"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
)

// fieldManagerPrefix is what every controller's field manager starts with:
// kubectl-reflect-NAME.
const fieldManagerPrefix = "kubectl-reflect"

// Run lists the built-ins, or runs the controllers named until a signal
// stops them (see runControllerLong).
func (o *RunControllerOptions) Run(ctx context.Context) error {
	if o.List {
		return printBuiltins(o.Out, o.registry.All())
	}
	tuneGC(true) // a controller's stores hold whole objects, packed
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	force := make(chan struct{})
	registry := prometheus.NewRegistry()
	ctrls, plain, stop, err := o.start(runCtx, nil, registry, force)
	if err != nil {
		return err
	}
	defer stop()
	forced, stopSignals := o.handleSignals(cancel, force, func() { reconcileAll(ctrls) })
	defer stopSignals()
	err = o.serveAndRun(runCtx, plain, ctrls, registry)
	if forced() {
		return errInterrupted
	}
	return err
}

// reconcileAll has every controller reconcile every object again (SIGHUP).
func reconcileAll(ctrls []*controller.Controller) {
	for _, c := range ctrls {
		c.ReconcileAll()
	}
}

// start builds the controllers named on set (nil: a Set of their own),
// with what every run of them has: the reconcile log on stderr (unless
// -q), tracing, metrics registered in registry and Events recorders. plain
// is a client whose calls are no spans (leader election). stop, once the
// controllers have stopped, flushes the recorders, the spans and the log.
// run-controller and serve --controllers both start their controllers so.
func (o *RunControllerOptions) start(ctx context.Context, set *reflector.Set, registry prometheus.Registerer, force <-chan struct{}) (
	ctrls []*controller.Controller, plain kubernetes.Interface, stop func(), err error,
) {
	var stops []func() // run in reverse order
	stopAll := func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	defer func() {
		if err != nil {
			stopAll()
		}
	}()
	var log *reconcileLog
	if !o.Quiet {
		log = newReconcileLog(o.ErrOut)
		stops = append(stops, log.close)
	}
	tp, stopTracing, err := controller.NewTracerProvider(ctx, "kubectl-reflect")
	if err != nil {
		return nil, nil, nil, err
	}
	stops = append(stops, func() { // flush the spans left, a few seconds at most; losing some is no error of the run
		flushCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = stopTracing(flushCtx)
	})
	env, plain, err := o.env(set, log, force, tp)
	if err != nil {
		return nil, nil, nil, err
	}
	env.Options.Metrics = controller.NewMetrics(registry)
	ctrls, stopEvents, err := o.build(ctx, env, plain)
	if err != nil {
		return nil, nil, nil, err
	}
	stops = append(stops, stopEvents)
	return ctrls, plain, stopAll, nil
}

// env is what every built-in is built on: the process's one reflector Set
// (so that two controllers reading ConfigMaps share one watch: set, or a
// new one when nil), clients
// without client-side rate limits whose writes are spans of tp (the
// reflectors' are not: a watch would be a span as long as the watch) and
// the runner options; plain is a client for the rest (leader election,
// Events), whose calls are no spans.
func (o *RunControllerOptions) env(set *reflector.Set, log *reconcileLog, force <-chan struct{}, tp trace.TracerProvider) (env builtin.Env, plain kubernetes.Interface, err error) {
	cfg, err := o.configFlags.ToRESTConfig()
	if err != nil {
		return env, nil, fmt.Errorf("reading the kubeconfig: %w", err)
	}
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = -1, 0 // the server's flow control limits us; a token bucket would only add latency
	// Writes over HTTP/1.1 too, as the reflectors: no HPACK per request
	// and no hand-off per answer (make bench's controller.cpu.http2 row).
	kube.OverHTTP1(cfg)
	// Built-in kinds' answers (an apply's result, Leases, Events) come as
	// protobuf, as controller-runtime and kubectl ask: cheaper to decode
	// than JSON. The reflectors (kube.NewRESTClient) and the dynamic client
	// read JSON whatever this says.
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	writes := rest.CopyConfig(cfg)
	controller.WrapConfigForTracing(writes, tp)
	cs, err := kubernetes.NewForConfig(writes)
	if err != nil {
		return env, nil, fmt.Errorf("creating a client: %w", err)
	}
	dyn, err := dynamic.NewForConfig(writes)
	if err != nil {
		return env, nil, fmt.Errorf("creating a client: %w", err)
	}
	if plain, err = kubernetes.NewForConfig(cfg); err != nil {
		return env, nil, fmt.Errorf("creating a client: %w", err)
	}
	if set == nil {
		if set, err = o.newSet(cfg); err != nil {
			return env, nil, err
		}
	}
	env = builtin.Env{
		Set: set, Namespace: o.namespace, Kube: cs, Dynamic: dyn,
		FieldManager: fieldManagerPrefix, DryRun: o.DryRun,
		Options: controller.Options{
			Concurrency: o.Concurrency, Debounce: o.Debounce, Logger: klog.Background(), ForceStop: force,
			TracerProvider: tp,
		},
	}
	if log != nil {
		env.Options.OnReconcile = log.record
	}
	return env, plain, nil
}

// newSet is run-controller's reflector Set: its retries reported on
// stderr.
func (o *RunControllerOptions) newSet(cfg *rest.Config) (*reflector.Set, error) {
	mapper, err := o.configFlags.ToRESTMapper()
	if err != nil {
		return nil, fmt.Errorf("reading the server's resource types: %w", err)
	}
	rc, err := kube.NewRESTClient(cfg)
	if err != nil {
		return nil, err
	}
	report := newReporter(o.ErrOut, false)
	return reflector.NewSet(reflector.SetOptions{NewClient: reflector.RESTClients(rc, kube.RediscoverWith(mapper)), Hooks: report.hooks(true)}), nil
}

// build builds every built-in's controllers on env, each built-in with an
// Events recorder of its own writing through events (none on a dry run);
// stop flushes the recorders.
func (o *RunControllerOptions) build(ctx context.Context, env builtin.Env, events kubernetes.Interface) (ctrls []*controller.Controller, stop func(), err error) {
	var stops []func()
	stop = func() {
		for _, s := range stops {
			s()
		}
	}
	for _, b := range o.builtins {
		benv := env
		if !o.DryRun {
			rec, stopRec := controller.NewRecorder(ctx, events, b.Name)
			benv.Recorder = rec
			stops = append(stops, stopRec)
		}
		cs, err := b.New(ctx, benv)
		if err != nil {
			stop()
			return nil, nil, fmt.Errorf("%s: %w", b.Name, err)
		}
		ctrls = append(ctrls, cs...)
	}
	return ctrls, stop, nil
}

// serveAndRun runs ctrls, under leader election with --leader-elect,
// serving /metrics, /healthz and /readyz on --metrics-addr meanwhile if
// set.
func (o *RunControllerOptions) serveAndRun(ctx context.Context, kube kubernetes.Interface, ctrls []*controller.Controller, registry *prometheus.Registry) error {
	var leading atomic.Bool
	run := func(ctx context.Context) error { return o.runAll(ctx, ctrls) }
	health := controller.HealthOptions{Gatherer: registry, Controllers: ctrls}
	if o.LeaderElect {
		health.Leading = leading.Load
		lease := controller.LeaderElection{Client: kube, Namespace: o.LeaderElectNamespace, Name: o.leaseName(),
			LeaseDuration: o.Lease.LeaseDuration, RenewDeadline: o.Lease.RenewDeadline, RetryPeriod: o.Lease.RetryPeriod}
		o.say("waiting to lead: Lease %s/%s", lease.Namespace, lease.Name)
		run = func(ctx context.Context) error {
			return controller.RunWithLeaderElection(ctx, lease, func(ctx context.Context) error {
				leading.Store(true)
				o.say("leading: Lease %s/%s", lease.Namespace, lease.Name)
				return o.runAll(ctx, ctrls)
			})
		}
	}
	if o.MetricsAddr == "" {
		return run(ctx)
	}
	srv, err := controller.ListenHealth(o.MetricsAddr, health)
	if err != nil {
		return err
	}
	o.say("serving /metrics, /healthz and /readyz on http://%s", srv.Addr())
	srvCtx, stopServing := context.WithCancel(context.WithoutCancel(ctx))
	served := make(chan error, 1)
	go func() { served <- srv.Run(srvCtx) }()
	err = run(ctx)
	stopServing()
	return errors.Join(err, <-served)
}

// say writes a line about the run on stderr, unless -q.
func (o *RunControllerOptions) say(format string, args ...any) {
	if !o.Quiet {
		fmt.Fprintf(o.ErrOut, format+"\n", args...)
	}
}

// runAll runs ctrls until ctx ends, and says on stderr (unless -q) when
// each is ready. A controller that fails stops the others.
func (o *RunControllerOptions) runAll(ctx context.Context, ctrls []*controller.Controller) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	o.announce()
	var wg sync.WaitGroup
	errs := make([]error, len(ctrls))
	for i, c := range ctrls {
		wg.Go(func() {
			if errs[i] = c.Run(ctx); errs[i] != nil {
				errs[i] = fmt.Errorf("%s: %w", c.Name(), errs[i])
				cancel()
			}
		})
		wg.Go(func() {
			select {
			case <-c.Ready():
				o.say("%s: ready", c.Name())
			case <-ctx.Done():
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// announce says what runs where.
func (o *RunControllerOptions) announce() {
	names := make([]string, len(o.builtins))
	for i, b := range o.builtins {
		names[i] = b.Name
	}
	where := "in namespace " + o.namespace
	if o.namespace == "" {
		where = "in every namespace"
	}
	dry := ""
	if o.DryRun {
		dry = " (dry run: nothing is written)"
	}
	o.say("running %s %s%s", strings.Join(names, ", "), where, dry)
}
