package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/controller"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/controllers"
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
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	force := make(chan struct{})
	var log *reconcileLog
	if !o.Quiet {
		log = newReconcileLog(o.ErrOut)
		defer log.close()
	}
	env, stopEvents, err := o.env(runCtx, log, force)
	if err != nil {
		return err
	}
	defer stopEvents()
	registry := prometheus.NewRegistry()
	env.Options.Metrics = controller.NewMetrics(registry)
	ctrls, err := o.build(runCtx, env)
	if err != nil {
		return err
	}
	reconcileAll := func() {
		for _, c := range ctrls {
			c.ReconcileAll()
		}
	}
	forced, stopSignals := o.handleSignals(cancel, force, reconcileAll)
	defer stopSignals()
	err = o.serveAndRun(runCtx, ctrls, registry)
	if forced() {
		return errInterrupted
	}
	return err
}

// env is what every built-in is built on: the process's one reflector Set
// (so that two controllers reading ConfigMaps share one watch), clients
// without client-side rate limits, an Events recorder (none on a dry run)
// and the runner options.
func (o *RunControllerOptions) env(ctx context.Context, log *reconcileLog, force <-chan struct{}) (controllers.Env, func(), error) {
	cfg, err := o.configFlags.ToRESTConfig()
	if err != nil {
		return controllers.Env{}, nil, fmt.Errorf("reading the kubeconfig: %w", err)
	}
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = -1, 0 // the server's flow control limits us; a token bucket would only add latency
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return controllers.Env{}, nil, fmt.Errorf("creating a client: %w", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return controllers.Env{}, nil, fmt.Errorf("creating a client: %w", err)
	}
	mapper, err := o.configFlags.ToRESTMapper()
	if err != nil {
		return controllers.Env{}, nil, fmt.Errorf("reading the server's resource types: %w", err)
	}
	rc, err := kube.NewRESTClient(cfg)
	if err != nil {
		return controllers.Env{}, nil, err
	}
	report := newReporter(o.ErrOut, false)
	set := reflector.NewSet(reflector.SetOptions{NewClient: reflector.RESTClients(rc, kube.RediscoverWith(mapper)), Hooks: report.hooks(true)})
	env := controllers.Env{
		Set: set, Namespace: o.namespace, Kube: cs, Dynamic: dyn,
		FieldManager: fieldManagerPrefix, DryRun: o.DryRun,
		Options: controller.Options{
			Concurrency: o.Concurrency, Debounce: o.Debounce, Logger: klog.Background(), ForceStop: force,
		},
	}
	if log != nil {
		env.Options.OnReconcile = log.record
	}
	stop := func() {}
	if !o.DryRun {
		b := events.NewBroadcaster(&events.EventSinkImpl{Interface: cs.EventsV1()})
		// Not cancelled with ctx: the reconciles that finish after a
		// SIGINT may still emit; stop flushes and ends it.
		if err := b.StartRecordingToSinkWithContext(context.WithoutCancel(ctx)); err != nil {
			return controllers.Env{}, nil, fmt.Errorf("starting the events recorder: %w", err)
		}
		env.Recorder = b.NewRecorder(scheme.Scheme, fieldManagerPrefix)
		stop = b.Shutdown
	}
	return env, stop, nil
}

// build builds every built-in's controllers on env; each built-in gets its
// own Events reporting controller name.
func (o *RunControllerOptions) build(ctx context.Context, env controllers.Env) ([]*controller.Controller, error) {
	var out []*controller.Controller
	for _, b := range o.builtins {
		cs, err := b.New(ctx, env)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", b.Name, err)
		}
		out = append(out, cs...)
	}
	return out, nil
}

// serveAndRun runs ctrls, serving /metrics, /healthz and /readyz on
// --metrics-addr meanwhile if set.
func (o *RunControllerOptions) serveAndRun(ctx context.Context, ctrls []*controller.Controller, registry *prometheus.Registry) error {
	if o.MetricsAddr == "" {
		return o.runAll(ctx, ctrls)
	}
	srv, err := controller.ListenHealth(o.MetricsAddr, controller.HealthOptions{Gatherer: registry, Controllers: ctrls})
	if err != nil {
		return err
	}
	if !o.Quiet {
		fmt.Fprintf(o.ErrOut, "serving /metrics, /healthz and /readyz on http://%s\n", srv.Addr())
	}
	srvCtx, stopServing := context.WithCancel(context.WithoutCancel(ctx))
	served := make(chan error, 1)
	go func() { served <- srv.Run(srvCtx) }()
	err = o.runAll(ctx, ctrls)
	stopServing()
	return errors.Join(err, <-served)
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
		if !o.Quiet {
			wg.Go(func() {
				select {
				case <-c.Ready():
					fmt.Fprintf(o.ErrOut, "%s: ready\n", c.Name())
				case <-ctx.Done():
				}
			})
		}
	}
	wg.Wait()
	return errors.Join(errs...)
}

// announce says what runs where, unless -q.
func (o *RunControllerOptions) announce() {
	if o.Quiet {
		return
	}
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
	fmt.Fprintf(o.ErrOut, "running %s %s%s\n", strings.Join(names, ", "), where, dry)
}

// handleSignals stops gracefully (cancel) on the first SIGINT or SIGTERM,
// forces (closes force) on the second, and reconciles everything again on
// SIGHUP. forced says whether the second came. stop ends the handling.
func (o *RunControllerOptions) handleSignals(cancel context.CancelFunc, force chan struct{}, reconcileAll func()) (forced func() bool, stop func()) {
	sigs := o.signals
	if sigs == nil {
		sigs = make(chan os.Signal, 4)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	}
	done := make(chan struct{})
	var mu sync.Mutex
	var wasForced bool
	var wg sync.WaitGroup
	wg.Go(func() {
		stops := 0
		for {
			select {
			case s := <-sigs:
				if s == syscall.SIGHUP {
					reconcileAll()
					continue
				}
				if stops++; stops == 1 {
					cancel()
					continue
				}
				mu.Lock()
				wasForced = true
				mu.Unlock()
				close(force)
				return
			case <-done:
				return
			}
		}
	})
	forced = func() bool { mu.Lock(); defer mu.Unlock(); return wasForced }
	stop = func() {
		if o.signals == nil {
			signal.Stop(sigs)
		}
		close(done)
		wg.Wait()
	}
	return forced, stop
}
