package daemon

import (
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/serve"
)

// serveMetrics are the daemon's /metrics: the handler's (serve.Collector),
// its reflectors' (events received, watch restarts, relists) and, with
// --controllers, the controllers' (controller.NewMetrics).
type serveMetrics struct {
	registry *prometheus.Registry
	relists  *prometheus.CounterVec
	received *prometheus.CounterVec
	restarts *prometheus.CounterVec
}

func newServeMetrics() *serveMetrics {
	m := &serveMetrics{
		registry: prometheus.NewRegistry(),
		relists: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kubectl_reflect_serve_relists_total",
			Help: "Lists started again after the API server answered 410 Gone, per resource.",
		}, []string{"resource"}),
		received: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kubectl_reflect_serve_events_received_total",
			Help: "Watch events from the API server applied to the store (type APPLIED: added or modified, or DELETED; lists not included), per resource.",
		}, []string{"resource", "type"}),
		restarts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kubectl_reflect_serve_watch_restarts_total",
			Help: "Watches of the API server opened again from the last resourceVersion after the previous one ended (not relists), per resource.",
		}, []string{"resource"}),
	}
	m.registry.MustRegister(m.relists, m.received, m.restarts)
	return m
}

// hooks count the reflectors' events, watch restarts and relists.
func (m *serveMetrics) hooks() reflector.Hooks {
	return reflector.Hooks{
		OnListed:       m.track,
		OnRelist:       func(res kube.Resource, _ error) { m.relists.WithLabelValues(res.String()).Inc() },
		OnWatchRestart: func(res kube.Resource) { m.restarts.WithLabelValues(res.String()).Inc() },
		OnEvent: func(res kube.Resource, deleted bool) {
			m.received.WithLabelValues(res.String(), eventTypeLabel(deleted)).Inc()
		},
	}
}

// track makes res's counters exist, at 0 until something happens: a
// scraper sees every series from the first list on.
func (m *serveMetrics) track(res kube.Resource) {
	m.relists.WithLabelValues(res.String())
	m.restarts.WithLabelValues(res.String())
	m.received.WithLabelValues(res.String(), eventTypeLabel(false))
	m.received.WithLabelValues(res.String(), eventTypeLabel(true))
}

// eventTypeLabel is the type label of a live event, deleted or not: the
// API server's ADDED and MODIFIED are one apply to the reflector.
func eventTypeLabel(deleted bool) string {
	if deleted {
		return "DELETED"
	}
	return "APPLIED"
}

// handler serves /metrics (with h's collector) and passes the rest to h.
func (m *serveMetrics) handler(h *serve.Handler) http.Handler {
	m.registry.MustRegister(serve.Collector(h))
	metrics := promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.TrimSuffix(r.URL.Path, "/") == "/metrics" {
			metrics.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}
