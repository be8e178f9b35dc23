package manager

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/builtin"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/controller"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
)

// FieldManager is what every controller's field manager starts with:
// kubectl-reflect-NAME.
const FieldManager = "kubectl-reflect"

// ErrInterrupted is Run's caller's error after a second signal forced the
// stop (HandleSignals): reconciles in flight were cancelled.
var ErrInterrupted = errors.New("interrupted")

// Config is what a Manager runs, and how.
type Config struct {
	// Builtins are the controllers to run, in the order given.
	Builtins []builtin.Spec
	// REST is the API server's client config (the user's): the
	// controllers write, elect a leader and record Events there.
	REST *rest.Config
	// Set is the reflector Set the controllers read through: the
	// process's, shared with every other consumer.
	Set *reflector.Set
	// Namespace is where the controllers run; "" is every namespace.
	Namespace string
	// Concurrency is the reconciles each controller runs at once (at
	// least 1); Debounce how long a change waits before its reconcile.
	Concurrency int
	Debounce    time.Duration
	// DryRun sends every write as a server-side dry run.
	DryRun bool
	// Log receives a line per reconcile and a line about the run (what
	// runs where, ready, leading); nil: none.
	Log io.Writer
	// Registry holds the controllers' metrics; nil: one of the Manager's.
	Registry *prometheus.Registry
	// LeaderElection, if set, runs the controllers only while this
	// process holds its Lease.
	LeaderElection *LeaderElection
	// HealthAddr, if set, is where Run serves /metrics, /healthz and
	// /readyz.
	HealthAddr string
}

// LeaderElection is the Lease a run holds to lead, under
// kube-controller-manager's timings: a standby takes over a Lease not
// renewed for LeaseDuration; the leader gives up when it cannot renew
// within RenewDeadline; both try every RetryPeriod.
type LeaderElection struct {
	Namespace, Name                           string
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
}

// Manager is a built run of controllers (see the package's doc).
type Manager struct {
	cfg      Config
	ctrls    []*controller.Controller
	plain    kubernetes.Interface // leader election's client: its calls are no spans
	registry *prometheus.Registry
	force    chan struct{}
	forceOne sync.Once
	closers  []func() // run in reverse order by Close
}

// New builds the controllers of cfg (see the package's doc); ctx bounds
// what they start (recorders, tracing) and must outlive Run.
func New(ctx context.Context, cfg Config) (_ *Manager, err error) {
	m := &Manager{cfg: cfg, registry: cfg.Registry, force: make(chan struct{})}
	if m.registry == nil {
		m.registry = prometheus.NewRegistry()
	}
	defer func() {
		if err != nil {
			m.Close()
		}
	}()
	var log *reconcileLog
	if cfg.Log != nil {
		log = newReconcileLog(cfg.Log)
		m.closers = append(m.closers, log.close)
	}
	tp, stopTracing, err := controller.NewTracerProvider(ctx, "kubectl-reflect")
	if err != nil {
		return nil, err
	}
	m.closers = append(m.closers, func() { // flush the spans left, a few seconds at most; losing some is no error of the run
		flushCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = stopTracing(flushCtx)
	})
	env, err := m.env(tp)
	if err != nil {
		return nil, err
	}
	env.Options.Metrics = controller.NewMetrics(m.registry)
	if log != nil {
		env.Options.OnReconcile = log.record
	}
	if err := m.build(ctx, env); err != nil {
		return nil, err
	}
	return m, nil
}

// build builds every built-in's controllers on env, each built-in with an
// Events recorder of its own (none on a dry run), flushed by Close.
func (m *Manager) build(ctx context.Context, env builtin.Env) error {
	for _, b := range m.cfg.Builtins {
		benv := env
		if !m.cfg.DryRun {
			rec, stopRec := controller.NewRecorder(ctx, m.plain, b.Name)
			benv.Recorder = rec
			m.closers = append(m.closers, stopRec)
		}
		cs, err := b.New(ctx, benv)
		if err != nil {
			return fmt.Errorf("%s: %w", b.Name, err)
		}
		m.ctrls = append(m.ctrls, cs...)
	}
	return nil
}

// env is what every built-in is built on: the Set, the clients (clients.go)
// and the runner options, whose ForceStop is Force's.
func (m *Manager) env(tp trace.TracerProvider) (builtin.Env, error) {
	writes, plain, err := newClients(m.cfg.REST, tp)
	if err != nil {
		return builtin.Env{}, err
	}
	m.plain = plain
	return builtin.Env{
		Set: m.cfg.Set, Namespace: m.cfg.Namespace, Kube: writes.kube, Dynamic: writes.dynamic,
		FieldManager: FieldManager, DryRun: m.cfg.DryRun,
		Options: controller.Options{
			Concurrency: m.cfg.Concurrency, Debounce: m.cfg.Debounce, Logger: klog.Background(), ForceStop: m.force,
			TracerProvider: tp,
		},
	}, nil
}

// Controllers are the controllers built, in the order of Config.Builtins;
// none of a nil Manager.
func (m *Manager) Controllers() []*controller.Controller {
	if m == nil {
		return nil
	}
	return m.ctrls
}

// ReconcileAll has every controller reconcile every object again.
func (m *Manager) ReconcileAll() {
	for _, c := range m.ctrls {
		c.ReconcileAll()
	}
}

// Force cancels the reconciles in flight of a Run whose context ended
// (controller.Options.ForceStop). It may be called more than once.
func (m *Manager) Force() { m.forceOne.Do(func() { close(m.force) }) }

// Close flushes what a run leaves (Events, spans, the log), once the
// controllers have stopped.
func (m *Manager) Close() {
	for i := len(m.closers) - 1; i >= 0; i-- {
		m.closers[i]()
	}
	m.closers = nil
}
