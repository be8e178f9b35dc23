package controller

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Metrics are the controllers' Prometheus metrics under controller-runtime's
// names, labels and help texts, so that existing dashboards work:
//
//   - controller_runtime_reconcile_total{controller,result} (result: success,
//     error, requeue, requeue_after), controller_runtime_reconcile_errors_total,
//     controller_runtime_terminal_reconcile_errors_total,
//     controller_runtime_reconcile_panics_total,
//     controller_runtime_reconcile_time_seconds,
//     controller_runtime_max_concurrent_reconciles and
//     controller_runtime_active_workers, all by controller;
//   - workqueue_depth{name,controller,priority} (priority "0" for live
//     changes, "-100" for the initial backlog, as controller-runtime's
//     priority queue labels them), workqueue_adds_total,
//     workqueue_queue_duration_seconds, workqueue_work_duration_seconds,
//     workqueue_unfinished_work_seconds,
//     workqueue_longest_running_processor_seconds and workqueue_retries_total,
//     by name and controller (both the controller's name).
//
// Several controllers share one Metrics. A nil *Metrics records nothing.
type Metrics struct {
	reconcileTotal, reconcileErrors, terminalErrors, panics *prometheus.CounterVec
	reconcileTime                                           *prometheus.HistogramVec
	maxConcurrent, activeWorkers                            *prometheus.GaugeVec

	depth                       *prometheus.GaugeVec
	adds, retries               *prometheus.CounterVec
	queueDuration, workDuration *prometheus.HistogramVec
	inFlight                    *inFlight
}

// The results of controller_runtime_reconcile_total.
const (
	resultSuccess      = "success"
	resultError        = "error"
	resultRequeue      = "requeue"
	resultRequeueAfter = "requeue_after"
)

// The priority label of workqueue_depth, controller-runtime's values.
var priorityLabels = [...]string{backlog: "-100", live: "0"}

// NewMetrics registers the controllers' metrics with reg, and the Go
// runtime's and the process's collectors unless reg has them already (as
// prometheus.DefaultRegisterer has). It panics if reg has the controllers'
// metrics already: make one Metrics per registry.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		reconcileTotal:  counter("controller_runtime_reconcile_total", "Total number of reconciliations per controller", "controller", "result"),
		reconcileErrors: counter("controller_runtime_reconcile_errors_total", "Total number of reconciliation errors per controller", "controller"),
		terminalErrors:  counter("controller_runtime_terminal_reconcile_errors_total", "Total number of terminal reconciliation errors per controller", "controller"),
		panics:          counter("controller_runtime_reconcile_panics_total", "Total number of reconciliation panics per controller", "controller"),
		reconcileTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "controller_runtime_reconcile_time_seconds", Help: "Length of time per reconciliation per controller",
			Buckets: []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0,
				1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60},
		}, []string{"controller"}),
		maxConcurrent: gauge("controller_runtime_max_concurrent_reconciles", "Maximum number of concurrent reconciles per controller", "controller"),
		activeWorkers: gauge("controller_runtime_active_workers", "Number of currently used workers per controller", "controller"),

		depth:         gauge("workqueue_depth", "Current depth of workqueue by workqueue and priority", "name", "controller", "priority"),
		adds:          counter("workqueue_adds_total", "Total number of adds handled by workqueue", "name", "controller"),
		retries:       counter("workqueue_retries_total", "Total number of retries handled by workqueue", "name", "controller"),
		queueDuration: workqueueHistogram("workqueue_queue_duration_seconds", "How long in seconds an item stays in workqueue before being requested"),
		workDuration:  workqueueHistogram("workqueue_work_duration_seconds", "How long in seconds processing an item from workqueue takes."),
		inFlight:      newInFlight(),
	}
	reg.MustRegister(m.reconcileTotal, m.reconcileErrors, m.terminalErrors, m.panics, m.reconcileTime,
		m.maxConcurrent, m.activeWorkers, m.depth, m.adds, m.retries, m.queueDuration, m.workDuration, m.inFlight)
	registerOnce(reg, collectors.NewGoCollector())
	registerOnce(reg, collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func counter(name, help string, labels ...string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
}

func gauge(name, help string, labels ...string) *prometheus.GaugeVec {
	return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)
}

func workqueueHistogram(name, help string) *prometheus.HistogramVec {
	return prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: name, Help: help, Buckets: prometheus.ExponentialBuckets(10e-9, 10, 12),
		NativeHistogramBucketFactor: 1.1, NativeHistogramMaxBucketNumber: 100, NativeHistogramMinResetDuration: time.Hour,
	}, []string{"name", "controller"})
}

// registerOnce registers c unless reg has it already.
func registerOnce(reg prometheus.Registerer, c prometheus.Collector) {
	if err := reg.Register(c); err != nil {
		var already prometheus.AlreadyRegisteredError
		if !errors.As(err, &already) {
			panic(err)
		}
	}
}

// started sets a controller's series to their initial values, as
// controller-runtime does, so that they exist before the first reconcile.
func (m *Metrics) started(controller string, workers int) {
	if m == nil {
		return
	}
	for _, r := range []string{resultSuccess, resultError, resultRequeue, resultRequeueAfter} {
		m.reconcileTotal.WithLabelValues(controller, r).Add(0)
	}
	m.reconcileErrors.WithLabelValues(controller).Add(0)
	m.terminalErrors.WithLabelValues(controller).Add(0)
	m.panics.WithLabelValues(controller).Add(0)
	m.maxConcurrent.WithLabelValues(controller).Set(float64(workers))
	m.activeWorkers.WithLabelValues(controller).Set(0)
	m.adds.WithLabelValues(controller, controller).Add(0)
	m.retries.WithLabelValues(controller, controller).Add(0)
	m.inFlight.add(controller)
}

// schedulerHooks are the workqueue metrics of a controller's scheduler.
func (m *Metrics) schedulerHooks(controller string) schedulerHooks {
	if m == nil {
		return schedulerHooks{}
	}
	adds := m.adds.WithLabelValues(controller, controller)
	retries := m.retries.WithLabelValues(controller, controller)
	queueDuration := m.queueDuration.WithLabelValues(controller, controller)
	var depth [len(priorityLabels)]prometheus.Gauge
	for p, label := range priorityLabels {
		depth[p] = m.depth.WithLabelValues(controller, controller, label)
	}
	return schedulerHooks{
		depth:   func(p priority, n int) { depth[p].Set(float64(n)) },
		added:   adds.Inc,
		started: func(_ priority, waited time.Duration) { queueDuration.Observe(waited.Seconds()) },
		retried: retries.Inc,
	}
}

// reconcileStarted counts an active worker; the func it returns records the
// reconcile's outcome.
func (m *Metrics) reconcileStarted(controller string) func(d time.Duration, res Result, err error, panicked bool) {
	if m == nil {
		return func(time.Duration, Result, error, bool) {}
	}
	m.activeWorkers.WithLabelValues(controller).Inc()
	id := m.inFlight.start(controller)
	return func(d time.Duration, res Result, err error, panicked bool) {
		m.inFlight.end(controller, id)
		m.activeWorkers.WithLabelValues(controller).Dec()
		m.reconcileTime.WithLabelValues(controller).Observe(d.Seconds())
		m.workDuration.WithLabelValues(controller, controller).Observe(d.Seconds())
		if panicked {
			m.panics.WithLabelValues(controller).Inc()
		}
		m.reconcileTotal.WithLabelValues(controller, resultOf(res, err)).Inc()
		if err != nil {
			m.reconcileErrors.WithLabelValues(controller).Inc()
			if IsTerminal(err) {
				m.terminalErrors.WithLabelValues(controller).Inc()
			}
		}
	}
}

// resultOf is the result label of a reconcile. There is no Requeue without
// a delay here, so "requeue" stays 0; it exists for dashboards.
func resultOf(res Result, err error) string {
	switch {
	case err != nil:
		return resultError
	case res.RequeueAfter > 0:
		return resultRequeueAfter
	}
	return resultSuccess
}
