package mirror

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/builtin"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/controller"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// Name is the built-in's name.
const Name = "mirror"

// DefaultFieldManager is the field manager of the copies when the
// environment gives no prefix.
const DefaultFieldManager = "kubectl-reflect-mirror"

// Builtin is the mirror built-in: one controller per kind it copies.
func Builtin() builtin.Spec {
	return builtin.Spec{
		Name:        Name,
		Description: "Copies Secrets and ConfigMaps across namespaces as emberstack reflector annotations say (reflection-allowed, reflects)",
		Reads:       []string{"secrets", "configmaps", "namespaces"},
		Writes:      []string{"secrets", "configmaps", "events.events.k8s.io"},
		Rules: []builtin.Rule{
			// list and watch read the stores (never a get); apply is a
			// patch, and creates a copy that does not exist yet.
			{Group: "", Resources: []string{"secrets", "configmaps"}, Verbs: []string{"list", "watch", "create", "patch", "delete"}},
			{Group: "", Resources: []string{"namespaces"}, Verbs: []string{"list", "watch"}},
			{Group: "events.k8s.io", Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
		},
		New: New,
	}
}

// New builds the mirror's controllers on env: mirror-secrets and
// mirror-configmaps. Every input reads all namespaces (copies live outside
// the source's namespace); with env.Namespace set, only the sources of
// that namespace are mirrored.
func New(_ context.Context, env builtin.Env) ([]*controller.Controller, error) {
	manager := DefaultFieldManager
	if env.FieldManager != "" {
		manager = env.FieldManager + "-" + Name
	}
	var out []*controller.Controller
	for _, k := range []kind{secrets, configMaps} {
		c, err := newController(env, k, manager)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func newController(env builtin.Env, k kind, manager string) (*controller.Controller, error) {
	r := &reconciler{kind: k, env: env, manager: manager, auto: &autoSources{}, now: time.Now}
	all := inputScope()
	b := controller.NewBuilder(Name+"-"+k.resource.GVR.Resource, env.Set)
	r.objects = b.For(k.resource, all)
	// A copy maps back to its source: its change (an edit, a deletion)
	// reconciles the source. The same resource and scope as For: one store.
	b.Watches(k.resource, all, copyToSource)
	r.nsInput = b.Watches(namespaces, all, r.namespaceToSources)
	opts := env.Options
	opts.Namespace = env.Namespace // -n NS mirrors the sources of NS only
	c, err := b.Build(r, opts)
	if err != nil {
		return nil, fmt.Errorf("mirror: %w", err)
	}
	return c, nil
}

// inputScope is the scope of every input of the mirror's kinds: all
// namespaces. Sources and copies carry emberstack's annotations; of every
// other object (most Secrets of a cluster) a reconcile reads only that it
// stands where a copy would go, so the store keeps its metadata only.
func inputScope() kube.Scope {
	return kube.Scope{Shape: kube.Shape{Prune: object.Prune{MetadataOnlyUnless: `"` + prefix}}}
}

// copyToSource maps an object whose reflects annotation names a source to
// that source.
func copyToSource(o *object.Object) []controller.Request {
	raw := o.JSON()
	if !bytes.Contains(raw, reflectsNeedle) {
		return nil
	}
	var meta struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	if json.Unmarshal(raw, &meta) != nil {
		return nil
	}
	k, ok := parseReflects(meta.Metadata.Annotations[annReflects])
	if !ok || k == store.KeyOf(o) {
		return nil
	}
	return []controller.Request{k}
}

// namespaceToSources maps a namespace to the sources that want an
// automatic copy in it, or have one there (its labels may no longer
// match): a namespace created gets its copies.
func (r *reconciler) namespaceToSources(o *object.Object) []controller.Request {
	ns, err := decodeNamespace(o)
	if err != nil {
		return nil
	}
	var out []controller.Request
	r.auto.each(func(k store.Key, p properties) {
		if k.Namespace == ns.name {
			return
		}
		if _, there := r.objects.Get(store.Key{Namespace: ns.name, Name: k.Name}); there || p.canAutoReflectTo(ns) {
			out = append(out, k)
		}
	})
	return out
}
