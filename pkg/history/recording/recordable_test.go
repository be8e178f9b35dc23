package recording

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestRecordable: every kind once, in its preferred version (the first
// serverResources lists), but for events.k8s.io's events (the core
// group's, the same objects, are recorded), v1 endpoints (EndpointSlices)
// and the kinds given.
func TestRecordable(t *testing.T) {
	known := []metav1.APIResource{
		{Name: "configmaps", Version: "v1"},
		{Name: "events", Version: "v1"},
		{Name: "endpoints", Version: "v1"},
		{Name: "secrets", Version: "v1"},
		{Name: "leases", Group: "coordination.k8s.io", Version: "v1"},
		{Name: "leases", Group: "coordination.k8s.io", Version: "v1beta1"},
		{Name: "events", Group: "events.k8s.io", Version: "v1"},
		{Name: "endpointslices", Group: "discovery.k8s.io", Version: "v1"},
		{Name: "widgets", Group: "example.com", Version: "v2"},
		{Name: "widgets", Group: "example.com", Version: "v1"},
	}
	given := map[schema.GroupResource]bool{{Resource: "secrets"}: true}
	var got []string
	for _, ar := range recordable(known, given) {
		got = append(got, ar.Name+"."+ar.Version+"."+ar.Group)
	}
	want := []string{"configmaps.v1.", "events.v1.", "leases.v1.coordination.k8s.io", "endpointslices.v1.discovery.k8s.io", "widgets.v2.example.com"}
	if !slices.Equal(got, want) {
		t.Errorf("recordable = %q, want %q", got, want)
	}
}
