package controller

import "time"

// Metrics are the controllers' Prometheus metrics under controller-runtime's
// names (controller_runtime_reconcile_total{controller,result}, ...,
// workqueue_depth{name}, ...), so that existing dashboards work. A nil
// *Metrics records nothing.
//
// TODO(controller core): client_golang collectors, NewMetrics(prometheus.Registerer).
type Metrics struct{}

func (m *Metrics) schedulerHooks(controller string) schedulerHooks { return schedulerHooks{} }

func (m *Metrics) started(controller string, workers int) {}

// reconcileStarted counts an active worker; the func it returns records the
// reconcile's outcome.
func (m *Metrics) reconcileStarted(controller string) func(d time.Duration, res Result, err error, panicked bool) {
	return func(time.Duration, Result, error, bool) {}
}
