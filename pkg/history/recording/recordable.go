package recording

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// notRecorded are the kinds recordAll leaves out, and why: each holds
// what another kind it records holds.
var notRecorded = map[schema.GroupResource]string{
	{Group: "events.k8s.io", Resource: "events"}: "the same objects as the core group's events, which are recorded",
	{Resource: "endpoints"}:                      "deprecated (Kubernetes 1.33); their addresses are in the EndpointSlices recorded",
}

// recordable are the kinds of the API server's resources (known, as
// serverResources reads them: each group's preferred version first) that
// recordAll records: one version of each resource (the preferred), none
// of notRecorded, none given (recorded as such).
func recordable(known []metav1.APIResource, given map[schema.GroupResource]bool) []metav1.APIResource {
	seen := map[schema.GroupResource]bool{}
	var out []metav1.APIResource
	for _, ar := range known {
		gr := schema.GroupResource{Group: ar.Group, Resource: ar.Name}
		if seen[gr] || given[gr] || notRecorded[gr] != "" {
			continue
		}
		seen[gr] = true
		out = append(out, ar)
	}
	return out
}
