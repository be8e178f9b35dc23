package kube

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Resource is one kind resolved against the server's discovery.
type Resource struct {
	GVR        schema.GroupVersionResource
	Kind       string
	Namespaced bool
}

// String names the resource the way kubectl prints it: "configmaps",
// "deployments.apps".
func (r Resource) String() string { return r.GVR.GroupResource().String() }

// ErrUnknownKind is wrapped by ResolveArgs's error for a kind the server does
// not serve.
var ErrUnknownKind = errors.New("the server doesn't have a resource type")

// Target is one resource and the names asked of it, in the order given;
// no names means every object of the resource.
type Target struct {
	Resource Resource
	Names    []string
}

// ResolveArgs resolves the kinds of ParseArgs's answer as kubectl does,
// each argument as one kind. Kinds without names are kept once each, in
// order; names of the same resource given one after the other (cm/a
// configmap/b) are merged, so that a resource named again later (cm/a
// secret/b cm/c) is a new Target, as kubectl starts a new table there.
func ResolveArgs(mapper meta.RESTMapper, args []Arg) ([]Target, error) {
	var out []Target
	seen := map[schema.GroupVersionResource]bool{}
	for _, arg := range args {
		m, err := mappingFor(mapper, arg.Kind)
		if err != nil {
			return nil, err
		}
		r := ResourceOf(m)
		switch {
		case len(arg.Names) == 0 && seen[r.GVR]:
		case len(arg.Names) > 0 && len(out) > 0 && out[len(out)-1].Resource == r:
			last := &out[len(out)-1]
			last.Names = append(last.Names, arg.Names...)
		default:
			out = append(out, Target{Resource: r, Names: slices.Clone(arg.Names)})
		}
		seen[r.GVR] = true
	}
	return out, nil
}

// ResourceOf is the Resource of a RESTMapper's mapping.
func ResourceOf(m *meta.RESTMapping) Resource {
	return Resource{GVR: m.Resource, Kind: m.GroupVersionKind.Kind, Namespaced: m.Scope.Name() == meta.RESTScopeNameNamespace}
}

// mappingFor resolves one argument as kubectl's resource builder does:
// first as a resource (plural, singular or short name, optionally with
// version and group), then as a kind.
func mappingFor(mapper meta.RESTMapper, arg string) (*meta.RESTMapping, error) {
	fullGVR, gr := schema.ParseResourceArg(arg)
	var gvk schema.GroupVersionKind
	if fullGVR != nil {
		gvk, _ = mapper.KindFor(*fullGVR)
	}
	if gvk.Empty() {
		gvk, _ = mapper.KindFor(gr.WithVersion("")) // as kubectl: a kind may still match
	}
	if !gvk.Empty() {
		return mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	fullGVK, gk := schema.ParseKindArg(arg)
	if fullGVK == nil {
		gvk := gk.WithVersion("")
		fullGVK = &gvk
	}
	if !fullGVK.Empty() {
		if m, err := mapper.RESTMapping(fullGVK.GroupKind(), fullGVK.Version); err == nil {
			return m, nil
		}
	}
	m, err := mapper.RESTMapping(gk)
	if err != nil {
		if !meta.IsNoMatchError(err) {
			return nil, fmt.Errorf("resolving %q: %w", arg, err)
		}
		if gr.Group != "" { // kubectl's words: the resource up to the first dot, then the rest
			return nil, fmt.Errorf("%w %q in group %q", ErrUnknownKind, gr.Resource, gr.Group)
		}
		return nil, fmt.Errorf("%w %q", ErrUnknownKind, gr.Resource)
	}
	return m, nil
}

// RediscoverWith is a Client's Rediscover through mapper: it forgets what
// mapper had discovered (when mapper can reset, as kubectl's deferred
// discovery mapper can) and maps the resource's group and kind again, to
// the version the server prefers now.
func RediscoverWith(mapper meta.RESTMapper) Rediscover {
	return func(_ context.Context, r Resource) (Resource, error) {
		if m, ok := mapper.(meta.ResettableRESTMapper); ok {
			m.Reset()
		}
		m, err := mapper.RESTMapping(schema.GroupKind{Group: r.GVR.Group, Kind: r.Kind})
		if err != nil {
			return Resource{}, fmt.Errorf("rediscovering %s: %w", r, err)
		}
		return ResourceOf(m), nil
	}
}
