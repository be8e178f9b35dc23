package kube

import (
	"errors"
	"fmt"
	"strings"

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

// ErrUnknownKind is wrapped by Resolve's error for a kind the server does
// not serve.
var ErrUnknownKind = errors.New("the server doesn't have a resource type")

// Resolve turns a comma-separated list of kinds (as typed after `kubectl
// get`) into resources, in order and without duplicates.
func Resolve(mapper meta.RESTMapper, kinds string) ([]Resource, error) {
	var out []Resource
	seen := map[schema.GroupVersionResource]bool{}
	for _, arg := range strings.Split(kinds, ",") {
		arg = strings.TrimSpace(arg)
		if arg == "" {
			return nil, fmt.Errorf("empty resource type in %q", kinds)
		}
		m, err := mappingFor(mapper, arg)
		if err != nil {
			return nil, err
		}
		r := Resource{GVR: m.Resource, Kind: m.GroupVersionKind.Kind, Namespaced: m.Scope.Name() == meta.RESTScopeNameNamespace}
		if !seen[r.GVR] {
			seen[r.GVR] = true
			out = append(out, r)
		}
	}
	return out, nil
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
		var err error
		gvk, err = mapper.KindFor(gr.WithVersion(""))
		if err != nil && !meta.IsNoMatchError(err) {
			return nil, fmt.Errorf("resolving %q: %w", arg, err)
		}
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
		if meta.IsNoMatchError(err) {
			return nil, fmt.Errorf("%w %q", ErrUnknownKind, arg)
		}
		return nil, fmt.Errorf("resolving %q: %w", arg, err)
	}
	return m, nil
}
