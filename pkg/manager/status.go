package manager

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	dto "github.com/prometheus/client_model/go"
)

// ControllerStatus is what the daemon reports of one controller at
// /debug/controllers (`serve status` prints it).
type ControllerStatus struct {
	Name  string `json:"name"`
	Ready bool   `json:"ready"`
	// Reconciles are the reconciles done since the start, whatever their
	// result.
	Reconciles uint64 `json:"reconciles"`
}

// Status reports every controller, its reconciles read from the metrics
// registry.
func (m *Manager) Status() []ControllerStatus {
	counts := map[string]uint64{}
	families, _ := m.registry.Gather()
	for _, f := range families {
		if f.GetName() == "controller_runtime_reconcile_total" {
			for _, metric := range f.GetMetric() {
				counts[labelValue(metric, "controller")] += uint64(metric.GetCounter().GetValue())
			}
		}
	}
	out := make([]ControllerStatus, 0, len(m.ctrls))
	for _, c := range m.ctrls {
		out = append(out, ControllerStatus{Name: c.Name(), Ready: c.IsReady(), Reconciles: counts[c.Name()]})
	}
	return out
}

func labelValue(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// Handler serves /debug/controllers (Status, as JSON) and answers /readyz
// 503 until every controller is ready; the rest, and /readyz then, go to
// next. A nil Manager (a daemon without controllers) serves an empty
// list.
func (m *Manager) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch strings.TrimSuffix(r.URL.Path, "/") {
		case "/debug/controllers":
			w.Header().Set("Content-Type", "application/json")
			status := []ControllerStatus{}
			if m != nil {
				status = m.Status()
			}
			_ = json.NewEncoder(w).Encode(status)
			return
		case "/readyz":
			for _, c := range m.Controllers() {
				if !c.IsReady() {
					w.Header().Set("Content-Type", "text/plain; charset=utf-8")
					w.WriteHeader(http.StatusServiceUnavailable)
					fmt.Fprintf(w, "controller %s is not ready yet", c.Name())
					return
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}
