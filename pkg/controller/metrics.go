package controller

// Metrics are the controllers' Prometheus metrics under controller-runtime's
// names (controller_runtime_reconcile_total{controller,result}, ...,
// workqueue_depth{name}, ...), so that existing dashboards work.
//
// TODO(controller core): client_golang collectors, NewMetrics(prometheus.Registerer).
type Metrics struct{}
