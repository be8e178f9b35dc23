package cmd

import (
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/listwatch"
)

func TestWithKinds(t *testing.T) {
	reads := []string{"configmapgenerators.kubectl-reflect.io", "configmaps"}
	tests := []struct {
		args, kinds, want []string
	}{
		{nil, nil, nil},
		{[]string{"cm"}, nil, []string{"cm"}},
		{nil, reads, []string{"configmapgenerators.kubectl-reflect.io,configmaps"}},
		{[]string{"cm,secrets"}, reads, []string{"cm,secrets,configmapgenerators.kubectl-reflect.io,configmaps"}},
		{[]string{"cm/a"}, reads, []string{"cm/a"}},       // names objects: serve refuses it as it is
		{[]string{"cm", "a"}, reads, []string{"cm", "a"}}, // the same
	}
	for _, tc := range tests {
		if got := withKinds(tc.args, tc.kinds); !slices.Equal(got, tc.want) {
			t.Errorf("withKinds(%q, %q) = %q, want %q", tc.args, tc.kinds, got, tc.want)
		}
	}
}

func TestServeControllersUnknown(t *testing.T) {
	for _, list := range []string{"nope", "configmap-generator,nope", "configmap-generator,"} {
		sc := serveControllers{Controllers: list}
		if _, err := sc.complete([]string{"cm"}); err == nil {
			t.Errorf("--controllers %q: no error", list)
		}
	}
	sc := serveControllers{Controllers: "mirror,configmap-generator,mirror"}
	args, err := sc.complete(nil)
	if err != nil || len(sc.builtins) != 2 || !strings.Contains(args[0], "configmapgenerators.kubectl-reflect.io") || !strings.Contains(args[0], "secrets") {
		t.Errorf("--controllers %q: %q, %d built-ins, %v", sc.Controllers, args, len(sc.builtins), err)
	}
}

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
	for _, typ := range []listwatch.EventType{listwatch.Apply, listwatch.Apply, listwatch.Delete} {
		h.OnEvent(cms, typ)
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
