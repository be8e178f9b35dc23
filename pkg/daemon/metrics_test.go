package daemon

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
)

// TestServeMetricsHooks: the reflector hooks count events received by
// type, watch restarts and relists per resource; every series exists at 0
// from the first list on.
func TestServeMetricsHooks(t *testing.T) {
	m := newServeMetrics()
	h := m.hooks()
	cms := kube.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespaced: true}
	h.OnListed(cms)
	if got := testutil.ToFloat64(m.restarts.WithLabelValues("configmaps")); got != 0 {
		t.Errorf("restarts after the list = %v, want 0", got)
	}
	for _, deleted := range []bool{false, false, true} {
		h.OnEvent(cms, deleted)
	}
	h.OnWatchRestart(cms)
	h.OnRelist(cms, nil)
	h.OnListed(cms) // after the relist: counts stay
	for _, c := range []struct {
		name string
		got  float64
		want float64
	}{
		{"APPLIED", testutil.ToFloat64(m.received.WithLabelValues("configmaps", "APPLIED")), 2},
		{"DELETED", testutil.ToFloat64(m.received.WithLabelValues("configmaps", "DELETED")), 1},
		{"restarts", testutil.ToFloat64(m.restarts.WithLabelValues("configmaps")), 1},
		{"relists", testutil.ToFloat64(m.relists.WithLabelValues("configmaps")), 1},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}
