package configmapgenerator

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/builtin"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/controller"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// Name is the built-in's name, as run-controller takes it.
const Name = "configmap-generator"

// crd is the ConfigMapGenerator CustomResourceDefinition, as YAML.
//
//go:embed crd.yaml
var crd []byte

// Builtin is the configmap-generator built-in.
func Builtin() builtin.Spec {
	return builtin.Spec{
		Name:        Name,
		Description: "Generates a ConfigMap from each ConfigMapGenerator (cmg) and keeps it as its spec says",
		Reads:       []string{"configmapgenerators.kubectl-reflect.io", "configmaps"},
		Writes:      []string{"configmaps", "configmapgenerators.kubectl-reflect.io/status", "events.events.k8s.io"},
		Rules: []builtin.Rule{
			{Group: Group, Resources: []string{"configmapgenerators"}, Verbs: []string{"get", "list", "watch"}},
			{Group: Group, Resources: []string{"configmapgenerators/status"}, Verbs: []string{"patch"}},
			// blockOwnerDeletion on a ConfigMap's ownerReference needs
			// update on the owner's finalizers where the admission plugin
			// OwnerReferencesPermissionEnforcement runs.
			{Group: Group, Resources: []string{"configmapgenerators/finalizers"}, Verbs: []string{"update"}},
			// apply is a patch that may create.
			{Group: "", Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch", "create", "patch", "delete"}},
			{Group: "events.k8s.io", Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
		},
		CRD: crd,
		New: newControllers,
	}
}

// newControllers builds the one configmap-generator controller on env, once
// it knows the server serves the CRD.
func newControllers(_ context.Context, env builtin.Env) ([]*controller.Controller, error) {
	if err := checkCRD(env.Kube.Discovery()); err != nil {
		return nil, err
	}
	b := controller.NewBuilder(Name, env.Set)
	// The reconciler reads a generator's spec, status and identity, never
	// its managedFields: they are not kept (a ConfigMap's are: applied()
	// reads them).
	genScope := env.Scope()
	genScope.Prune = object.Prune{ManagedFields: true, LastApplied: true}
	gens := b.For(Resource, genScope)
	prefix := env.FieldManager
	if prefix == "" {
		prefix = "kubectl-reflect"
	}
	fieldManager := prefix + "-" + Name
	cmScope := env.Scope()
	cmScope.Prune = object.Prune{MetadataOnlyUnless: ownMarkers(fieldManager)}
	cms := b.Owns(configMaps, cmScope)
	// A ConfigMap of a generator's name that is not its own blocks it
	// (NameConflict); its going away must reconcile the generator.
	b.Watches(configMaps, cmScope, sameName(gens))
	r := &reconciler{
		gens: gens, cms: cms, kube: env.Kube,
		fieldManager: fieldManager, dryRun: env.DryRun, recorder: env.Recorder,
		now: metav1.Now,
	}
	c, err := b.Build(r, env.Options)
	if err != nil {
		return nil, err
	}
	return []*controller.Controller{c}, nil
}

// ownMarkers are what the JSON of a ConfigMap the reconciler may write
// contains: a generator's controller reference (its kind) or, orphaned, the
// field manager's name in its managedFields. The store keeps every other
// ConfigMap as metadata only: all the reconciler reads of those is that
// one exists under a generator's name and who controls it (NameConflict).
func ownMarkers(fieldManager string) string {
	quoted, _ := json.Marshal(fieldManager) // as the API server writes it
	return `"` + Kind + `"` + "\n" + string(quoted)
}

// sameName maps a ConfigMap to the generator of its name, if there is one.
func sameName(gens *controller.Input) controller.Mapper {
	return func(o *object.Object) []controller.Request {
		k := store.Key{Namespace: o.Namespace, Name: o.Name}
		if _, ok := gens.Get(k); ok {
			return []controller.Request{k}
		}
		return nil
	}
}

// checkCRD fails with what to do when the server does not serve the CRD.
func checkCRD(d discovery.DiscoveryInterface) error {
	_, err := d.ServerResourcesForGroupVersion(Group + "/" + Version)
	switch {
	case apierrors.IsNotFound(err):
		return fmt.Errorf("the server does not serve %s (the ConfigMapGenerator CRD): run kubectl reflect crd install %s", GVR.GroupResource(), Name)
	case err != nil:
		return fmt.Errorf("looking up the ConfigMapGenerator CRD: %w", err)
	}
	return nil
}
