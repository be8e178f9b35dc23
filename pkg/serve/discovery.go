package serve

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// gvrOf is the group, version and resource of ar, whose Group and Version
// are set.
func gvrOf(ar metav1.APIResource) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: ar.Group, Version: ar.Version, Resource: ar.Name}
}

// Discovered finds gvr among known, the API server's resources as its
// discovery lists them, each with its Group and Version set.
func Discovered(known []metav1.APIResource, gvr schema.GroupVersionResource) (metav1.APIResource, bool) {
	i := slices.IndexFunc(known, func(ar metav1.APIResource) bool { return gvrOf(ar) == gvr })
	if i < 0 {
		return metav1.APIResource{}, false
	}
	return known[i], true
}

// verbs are what the handler serves of every cached resource.
var verbs = metav1.Verbs{"get", "list", "watch"}

// aggregatedType is the media type of aggregated discovery (v2), which
// kubectl and client-go ask for first and take when the answer has it.
const aggregatedType = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

// discovery holds the documents of the served resources, legacy and
// aggregated, built at once: a Handler swaps in new ones when what it
// serves (Options.OnDemand's discovery) changes.
type discovery struct {
	core      []metav1.APIResource // of /api/v1
	groups    []groupDoc           // of /apis, in the order resources were given
	aggCore   []byte               // /api, aggregated
	aggGroups []byte               // /apis, aggregated
}

type groupDoc struct {
	name     string
	versions []string // the preferred (the first given) first
	byVer    map[string][]metav1.APIResource
}

// newDiscovery builds the documents of known (the API server's resources,
// each with its Group and Version, in its order), then of the resources
// of fixed that known lacks.
func newDiscovery(fixed []Resource, known []metav1.APIResource) *discovery {
	all := slices.Clone(known)
	for _, r := range fixed {
		gvr := r.Source.Resource().GVR
		ar := r.Discovery
		ar.Group, ar.Version, ar.Name = gvr.Group, gvr.Version, gvr.Resource
		if !slices.ContainsFunc(all, func(k metav1.APIResource) bool { return gvrOf(k) == gvr }) {
			all = append(all, ar)
		}
	}
	d := &discovery{}
	for _, ar := range all {
		group, version := ar.Group, ar.Version
		ar.Verbs = verbs
		ar.Group, ar.Version = "", "" // as the API server lists them: the group version is the list's
		if group == "" && version == "v1" {
			d.core = append(d.core, ar)
			continue
		}
		i := slices.IndexFunc(d.groups, func(g groupDoc) bool { return g.name == group })
		if i < 0 {
			d.groups = append(d.groups, groupDoc{name: group, byVer: map[string][]metav1.APIResource{}})
			i = len(d.groups) - 1
		}
		g := &d.groups[i]
		if !slices.Contains(g.versions, version) {
			g.versions = append(g.versions, version)
		}
		g.byVer[version] = append(g.byVer[version], ar)
	}
	d.aggCore = mustJSON(aggregatedList([]apidiscoveryv2.APIGroupDiscovery{{
		Versions: []apidiscoveryv2.APIVersionDiscovery{aggregatedVersion("", "v1", d.core)},
	}}))
	var groups []apidiscoveryv2.APIGroupDiscovery
	for _, g := range d.groups {
		ag := apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: g.name}}
		for _, v := range g.versions {
			ag.Versions = append(ag.Versions, aggregatedVersion(g.name, v, g.byVer[v]))
		}
		groups = append(groups, ag)
	}
	d.aggGroups = mustJSON(aggregatedList(groups))
	return d
}

func aggregatedList(items []apidiscoveryv2.APIGroupDiscovery) apidiscoveryv2.APIGroupDiscoveryList {
	if items == nil {
		items = []apidiscoveryv2.APIGroupDiscovery{}
	}
	return apidiscoveryv2.APIGroupDiscoveryList{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroupDiscoveryList", APIVersion: "apidiscovery.k8s.io/v2"},
		Items:    items,
	}
}

func aggregatedVersion(group, version string, resources []metav1.APIResource) apidiscoveryv2.APIVersionDiscovery {
	v := apidiscoveryv2.APIVersionDiscovery{Version: version, Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent}
	for _, ar := range resources {
		scope := apidiscoveryv2.ScopeCluster
		if ar.Namespaced {
			scope = apidiscoveryv2.ScopeNamespace
		}
		v.Resources = append(v.Resources, apidiscoveryv2.APIResourceDiscovery{
			Resource: ar.Name, SingularResource: ar.SingularName, Scope: scope, Verbs: ar.Verbs,
			ResponseKind: &metav1.GroupVersionKind{Group: group, Version: version, Kind: ar.Kind},
			ShortNames:   ar.ShortNames, Categories: ar.Categories,
		})
	}
	return v
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("serve: encoding a discovery document: " + err.Error()) // only fixed types: a bug
	}
	return b
}

// wantsAggregated says whether the request takes aggregated discovery v2.
func wantsAggregated(r *http.Request) bool {
	for _, mt := range parseAccept(r.Header.Get("Accept")) {
		if mt.g == "apidiscovery.k8s.io" && mt.v == "v2" && mt.as == "APIGroupDiscoveryList" {
			return true
		}
	}
	return false
}

// serve answers path if it is a discovery path, and reports whether it
// was.
func (d *discovery) serve(w http.ResponseWriter, r *http.Request, path string) bool {
	switch {
	case path == "/api":
		if wantsAggregated(r) {
			writeRaw(w, aggregatedType, d.aggCore)
			return true
		}
		writeJSON(w, metav1.APIVersions{TypeMeta: metav1.TypeMeta{Kind: "APIVersions"}, Versions: []string{"v1"},
			ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{{ClientCIDR: "0.0.0.0/0", ServerAddress: r.Host}}})
	case path == "/apis":
		if wantsAggregated(r) {
			writeRaw(w, aggregatedType, d.aggGroups)
			return true
		}
		list := metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}, Groups: []metav1.APIGroup{}}
		for _, g := range d.groups {
			list.Groups = append(list.Groups, g.apiGroup())
		}
		writeJSON(w, list)
	case path == "/api/v1":
		writeJSON(w, resourceList("v1", d.core))
	case strings.HasPrefix(path, "/apis/"):
		group, version, _ := strings.Cut(strings.TrimPrefix(path, "/apis/"), "/")
		i := slices.IndexFunc(d.groups, func(g groupDoc) bool { return g.name == group })
		if i < 0 || strings.Contains(version, "/") {
			return false // a resource path, or nothing cached: answered as such
		}
		g := d.groups[i]
		if version == "" {
			ag := g.apiGroup()
			ag.TypeMeta = metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}
			writeJSON(w, ag)
			return true
		}
		if !slices.Contains(g.versions, version) {
			return false
		}
		writeJSON(w, resourceList(group+"/"+version, g.byVer[version]))
	default:
		return false
	}
	return true
}

func (g groupDoc) apiGroup() metav1.APIGroup {
	ag := metav1.APIGroup{Name: g.name}
	for _, v := range g.versions {
		ag.Versions = append(ag.Versions, metav1.GroupVersionForDiscovery{GroupVersion: g.name + "/" + v, Version: v})
	}
	ag.PreferredVersion = ag.Versions[0]
	return ag
}

func resourceList(gv string, resources []metav1.APIResource) metav1.APIResourceList {
	if resources == nil {
		resources = []metav1.APIResource{}
	}
	return metav1.APIResourceList{
		TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
		GroupVersion: gv, APIResources: resources,
	}
}

func writeJSON(w http.ResponseWriter, v any) { writeRaw(w, "application/json", mustJSON(v)) }

func writeRaw(w http.ResponseWriter, contentType string, body []byte) {
	w.Header().Set("Content-Type", contentType)
	_, _ = w.Write(body)
}
