package daemon

import (
	"context"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/serve"
)

// discover picks what the API server's discovery (known) says of each
// resource, and reads its version.
func (d *daemonRun) discover(ctx context.Context, rc rest.Interface, dc discovery.DiscoveryInterface, known []metav1.APIResource, handles []*reflector.Handle) ([]serve.Resource, []byte, error) {
	var out []serve.Resource
	for _, h := range handles {
		res := h.Resource()
		def := definitionOf(ctx, rc, res)
		out = append(out, serve.Resource{
			Source: h, Namespace: d.scopeOf(res).Namespace, Discovery: discoveryOf(known, res),
			SelectableFields: def.SelectableFields, DateColumns: def.DateColumns,
		})
	}
	version, err := dc.RESTClient().Get().AbsPath("/version").DoRaw(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the server's version: %w", err)
	}
	return out, version, nil
}

// definitionOf is what the daemon reads in res's definition, if it is a
// custom resource the user may read the definition of (nothing otherwise):
// the field labels it makes selectable, and its printer columns of type
// date; as a serve.Started whose Source is left to the caller.
func definitionOf(ctx context.Context, rc rest.Interface, res kube.Resource) (def serve.Started) {
	if !strings.Contains(res.GVR.Group, ".") {
		return def // built-in groups have no definition to read
	}
	raw, err := rc.Get().AbsPath("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", res.GVR.Resource+"."+res.GVR.Group).DoRaw(ctx)
	if err != nil {
		return def // not a custom resource, or not readable: metadata.name and metadata.namespace only
	}
	version := gjson.GetBytes(raw, fmt.Sprintf("spec.versions.#(name==%q)", res.GVR.Version))
	for _, p := range version.Get("selectableFields.#.jsonPath").Array() {
		def.SelectableFields = append(def.SelectableFields, strings.TrimPrefix(p.Str, "."))
	}
	for _, col := range version.Get("additionalPrinterColumns").Array() {
		if col.Get("type").Str != "date" {
			continue
		}
		if def.DateColumns == nil {
			def.DateColumns = map[string]string{}
		}
		def.DateColumns[col.Get("name").Str] = col.Get("jsonPath").Str
	}
	return def
}
