package timeline

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-reflect/kubectl-reflect/internal/contexts"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/daemon"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/history/recording"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/timeline"
)

// opened is the histories of the contexts drawn and the kinds drawn.
type opened struct {
	clusters []timeline.Cluster
	kinds    []timeline.Kind
	// resources are the kinds as the server names them, for get --at's
	// and history's views of a revision (by Kind.Resource).
	resources map[string]kube.Resource
}

// open opens each context's history and resolves the kinds: those given,
// else every kind the histories recorded but Events.
func (o *TimelineOptions) open(ctx context.Context) (*opened, func(), error) {
	out := &opened{resources: map[string]kube.Resource{}}
	var stores []history.Record
	closeAll := func() {
		for _, s := range stores {
			s.Close()
		}
	}
	openOne := func(_ int, name string) error {
		src, err := o.openContext(ctx, name, out)
		if err != nil {
			return err
		}
		stores = append(stores, src.Record)
		out.clusters = append(out.clusters, src)
		return nil
	}
	var err error
	switch len(o.contexts) {
	case 0:
		err = openOne(0, "") // the current context
	case 1:
		err = openOne(0, o.contexts[0]) // --all-contexts of a kubeconfig of one
	default:
		err = contexts.Each(o.contexts, openOne) // its errors name their context
	}
	if err == nil {
		err = checkRecorded(ctx, out)
	}
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	return out, closeAll, nil
}

// openContext opens the history of context name ("": the current one)
// and adds its kinds to out. A context named is drawn, without -n or -A,
// in its own namespace (its kubeconfig entry's, else "default"), as get
// --context a,b reads each.
func (o *TimelineOptions) openContext(ctx context.Context, name string, out *opened) (timeline.Cluster, error) {
	t, named := o.Target, name != ""
	if named {
		t = o.Target.ForContext(name, o.IOStreams)
	} else if raw, err := o.ConfigFlags.ToRawKubeConfigLoader().RawConfig(); err == nil {
		name = raw.CurrentContext
		if o.ConfigFlags.Context != nil && *o.ConfigFlags.Context != "" {
			name = *o.ConfigFlags.Context
		}
	}
	t.Verb, t.Args = "timeline", o.Args
	var resources []kube.Resource
	var err error
	if len(o.Args) > 0 {
		if err = t.Resolve(); err != nil {
			return timeline.Cluster{}, err
		}
		resources = t.Resources
	} else if t.Config, err = t.ConfigFlags.ToRESTConfig(); err != nil {
		return timeline.Cluster{}, fmt.Errorf("reading the kubeconfig: %w", err)
	}
	s, err := recording.OpenRecord(ctx, t.Config, o.DB, daemon.HistoryOf)
	if err != nil {
		return timeline.Cluster{}, err
	}
	if len(o.Args) == 0 {
		if resources, err = recordedKinds(ctx, s, t.ConfigFlags.ToRESTMapper); err != nil {
			s.Close()
			return timeline.Cluster{}, err
		}
	}
	for _, r := range resources {
		k := history.ResourceName(r)
		if _, ok := out.resources[k]; !ok {
			out.resources[k] = r
			out.kinds = append(out.kinds, timeline.Kind{Resource: k, Name: r.String(), Kind: r.Kind, Namespaced: r.Namespaced})
		}
	}
	src := timeline.Cluster{Context: name, Record: s}
	if named && o.Namespace == "" && !o.AllNamespaces {
		if src.Namespace, _, err = t.ConfigFlags.ToRawKubeConfigLoader().Namespace(); err != nil {
			s.Close()
			return timeline.Cluster{}, fmt.Errorf("context %s: reading the kubeconfig: %w", name, err)
		}
	}
	return src, nil
}

// recordedKinds are the kinds s recorded but Events, as the server's
// RESTMapper names them (a kind it no longer serves is left out).
func recordedKinds(ctx context.Context, s history.Record, mapper func() (meta.RESTMapper, error)) ([]kube.Resource, error) {
	r, ok := s.(history.MarkReader)
	if !ok {
		return nil, timeline.ErrNoMarkReader
	}
	names, err := r.Resources(ctx)
	if err != nil {
		return nil, err
	}
	m, err := mapper()
	if err != nil {
		return nil, fmt.Errorf("reading the server's resource types: %w", err)
	}
	var out []kube.Resource
	for _, n := range names {
		parts := strings.SplitN(n, ".", 3)
		if len(parts) != 3 || parts[0] == "events" {
			continue
		}
		gvr := schema.GroupVersionResource{Resource: parts[0], Version: parts[1], Group: parts[2]}
		gvk, err := m.KindFor(gvr)
		if err != nil {
			continue
		}
		mapping, err := m.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			continue
		}
		out = append(out, kube.Resource{GVR: gvr, Kind: gvk.Kind, Namespaced: mapping.Scope.Name() == meta.RESTScopeNameNamespace})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the history %s: %w (serve KIND --record records one)", s.Location(), history.ErrNotRecorded)
	}
	return out, nil
}

// checkRecorded fails for a kind no history recorded.
func checkRecorded(ctx context.Context, out *opened) error {
	recorded := map[string]bool{}
	for _, src := range out.clusters {
		r, ok := src.Record.(history.MarkReader)
		if !ok {
			return timeline.ErrNoMarkReader
		}
		names, err := r.Resources(ctx)
		if err != nil {
			return err
		}
		for _, n := range names {
			recorded[n] = true
		}
	}
	for _, k := range out.kinds {
		if !recorded[k.Resource] {
			locs := make([]string, len(out.clusters))
			for i, src := range out.clusters {
				locs[i] = src.Record.Location()
			}
			return history.NotRecordedError(out.resources[k.Resource], strings.Join(slices.Compact(locs), ", "))
		}
	}
	return nil
}
