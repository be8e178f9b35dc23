package kube

import (
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TypedName is one way to name a resource on the command line.
type TypedName struct {
	Name     string // configmaps, cm, deployments.apps
	Kind     string // ConfigMap
	Resource string // the resource it names, as plural.group
}

// TypedNames lists, for every resource that can be listed and watched, its
// plural, its short names and, outside the core group, plural.group, sorted
// by name without duplicates.
func TypedNames(lists []*metav1.APIResourceList) []TypedName {
	var out []TypedName
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") || !slices.Contains(r.Verbs, "watch") {
				continue // a subresource, or nothing to watch
			}
			resource := schema.GroupResource{Group: gv.Group, Resource: r.Name}.String()
			out = append(out, TypedName{r.Name, r.Kind, resource})
			for _, s := range r.ShortNames {
				out = append(out, TypedName{s, r.Kind, resource})
			}
			if gv.Group != "" {
				out = append(out, TypedName{resource, r.Kind, resource})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b TypedName) int { return strings.Compare(a.Name, b.Name) })
	return slices.CompactFunc(out, func(a, b TypedName) bool { return a.Name == b.Name })
}
