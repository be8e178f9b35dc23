package daemon

import (
	"context"
	"net/http/httptest"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/serve"
)

// TestGetterShortNameOrder: a short name two kinds share resolves at a
// daemon's discovery to the first in the server's order (the core group's
// resourcequotas before a custom resource's "quota"), every time: the
// memory-cached discovery would list the aggregated answer's groups in a
// map's order.
func TestGetterShortNameOrder(t *testing.T) {
	h := serve.New(serve.Options{OnDemand: &serve.OnDemand{
		Discovered: []metav1.APIResource{
			{Name: "resourcequotas", Version: "v1", Kind: "ResourceQuota", Namespaced: true, ShortNames: []string{"quota"}},
			{Name: "pods", Version: "v1", Kind: "Pod", Namespaced: true, ShortNames: []string{"po"}},
			{Name: "shades", Group: "a.example.com", Version: "v1", Kind: "Shade", Namespaced: true, ShortNames: []string{"quota"}},
			{Name: "lamps", Group: "b.example.com", Version: "v1", Kind: "Lamp", Namespaced: true, ShortNames: []string{"quota"}},
			{Name: "deployments", Group: "apps", Version: "v1", Kind: "Deployment", Namespaced: true, ShortNames: []string{"deploy"}},
		},
		Start: func(context.Context, kube.Resource, string) (serve.Started, error) { panic("nothing is read") },
	}})
	defer h.Close()
	srv := httptest.NewServer(h)
	defer srv.Close()
	want := schema.GroupVersionResource{Version: "v1", Resource: "resourcequotas"}
	for range 20 {
		m := newGetter(&rest.Config{Host: srv.URL}, nil).mapper()
		got, err := m.ResourceFor(schema.GroupVersionResource{Resource: "quota"})
		if err != nil || got != want {
			t.Fatalf("quota = %v, %v; want %v", got, err, want)
		}
	}
}
