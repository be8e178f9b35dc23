package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/tidwall/gjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// Finalizer adds and removes one finalizer of a resource's objects with
// server-side apply of metadata.finalizers alone, under FieldManager.
//
// The apply owns nothing but that finalizer, so FieldManager must apply
// nothing else to the same objects: an apply drops every field its manager
// owned and left out. A controller that also applies the objects it
// finalizes uses another manager here (its own plus "-finalizer").
// Each apply carries the object's uid and resourceVersion as it was read,
// so it never creates an object that is gone and fails with a conflict
// (retried like any error) when the object changed since.
type Finalizer struct {
	Client       dynamic.Interface
	Resource     kube.Resource
	Name         string // the finalizer, e.g. "kubectl-reflect.io/mirror"
	FieldManager string
	DryRun       bool // server-side dry run
}

// HasFinalizer reports whether obj lists finalizer name.
func HasFinalizer(obj *object.Object, name string) bool {
	found := false
	gjson.GetBytes(obj.JSON(), "metadata.finalizers").ForEach(func(_, f gjson.Result) bool {
		found = f.String() == name
		return !found
	})
	return found
}

// Add makes obj list f's finalizer; it does nothing if obj lists it.
func (f Finalizer) Add(ctx context.Context, obj *object.Object) error {
	if HasFinalizer(obj, f.Name) {
		return nil
	}
	_, err := f.apply(ctx, obj, []string{f.Name})
	return err
}

// Remove makes obj no longer list f's finalizer; it does nothing if obj
// does not list it. If another manager listed it too, the apply leaves it
// and Remove takes it out with a JSON patch that tests it is still there.
func (f Finalizer) Remove(ctx context.Context, obj *object.Object) error {
	if !HasFinalizer(obj, f.Name) {
		return nil
	}
	u, err := f.apply(ctx, obj, nil)
	if err != nil {
		return err
	}
	i := slices.Index(u.GetFinalizers(), f.Name)
	if i < 0 {
		return nil
	}
	return f.patchOut(ctx, obj, i)
}

func (f Finalizer) apply(ctx context.Context, obj *object.Object, finalizers []string) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(f.Resource.GVR.GroupVersion().String())
	u.SetKind(f.Resource.Kind)
	u.SetNamespace(obj.Namespace)
	u.SetName(obj.Name)
	u.SetUID(types.UID(obj.UID))
	u.SetResourceVersion(obj.ResourceVersion)
	if finalizers != nil {
		u.SetFinalizers(finalizers)
	}
	opts := metav1.ApplyOptions{FieldManager: f.FieldManager, Force: true}
	if f.DryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	out, err := f.client(obj).Apply(ctx, obj.Name, u, opts)
	if err != nil {
		return nil, fmt.Errorf("applying the finalizers of %s %s: %w", f.Resource, obj.Name, err)
	}
	return out, nil
}

// patchOut removes the finalizer at index i, if it is still there.
func (f Finalizer) patchOut(ctx context.Context, obj *object.Object, i int) error {
	path := fmt.Sprintf("/metadata/finalizers/%d", i)
	patch, err := json.Marshal([]map[string]any{
		{"op": "test", "path": path, "value": f.Name},
		{"op": "remove", "path": path},
	})
	if err != nil {
		return err
	}
	opts := metav1.PatchOptions{FieldManager: f.FieldManager}
	if f.DryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	if _, err := f.client(obj).Patch(ctx, obj.Name, types.JSONPatchType, patch, opts); err != nil {
		return fmt.Errorf("removing finalizer %s from %s %s: %w", f.Name, f.Resource, obj.Name, err)
	}
	return nil
}

func (f Finalizer) client(obj *object.Object) dynamic.ResourceInterface {
	if f.Resource.Namespaced {
		return f.Client.Resource(f.Resource.GVR).Namespace(obj.Namespace)
	}
	return f.Client.Resource(f.Resource.GVR)
}
