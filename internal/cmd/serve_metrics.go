package cmd

import (
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/serve"
)

// serveMetrics are the daemon's /metrics: the handler's (serve.Collector)
// and its reflectors' relists.
type serveMetrics struct {
	registry *prometheus.Registry
	relists  *prometheus.CounterVec
}

func newServeMetrics() *serveMetrics {
	m := &serveMetrics{
		registry: prometheus.NewRegistry(),
		relists: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kubectl_reflect_serve_relists_total",
			Help: "Lists started again after the API server answered 410 Gone, per resource.",
		}, []string{"resource"}),
	}
	m.registry.MustRegister(m.relists)
	return m
}

// hooks count the reflectors' relists.
func (m *serveMetrics) hooks() reflector.Hooks {
	return reflector.Hooks{OnRelist: func(res kube.Resource, _ error) { m.relists.WithLabelValues(res.String()).Inc() }}
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
