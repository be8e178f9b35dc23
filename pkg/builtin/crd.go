package builtin

import (
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"
)

// crdGVR is the resource of CustomResourceDefinitions.
var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// ParseCRD is s's CRD as an object (`crd install` applies it).
func (s Spec) ParseCRD() (*unstructured.Unstructured, error) {
	crd := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(s.CRD, &crd.Object); err != nil {
		return nil, fmt.Errorf("reading the CRD of %s: %w", s.Name, err)
	}
	return crd, nil
}

// ApplyCRD applies crd with server-side apply under fieldManager, taking
// the fields it sets from any other manager.
func ApplyCRD(ctx context.Context, dyn dynamic.Interface, crd *unstructured.Unstructured, fieldManager string) error {
	name := crd.GetName()
	if _, err := dyn.Resource(crdGVR).Apply(ctx, name, crd, metav1.ApplyOptions{FieldManager: fieldManager, Force: true}); err != nil {
		return fmt.Errorf("applying customresourcedefinition %s: %w", name, err)
	}
	return nil
}

// WaitEstablished polls the CRD name until its Established condition is
// True (the API server serves the new resource), as kubectl wait
// --for=condition=Established does, at most timeout; ctx's error if ctx
// is cancelled first.
func WaitEstablished(ctx context.Context, dyn dynamic.Interface, name string, timeout time.Duration) error {
	crds := dyn.Resource(crdGVR)
	var last error
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		u, err := crds.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			last = err
			return false, nil
		}
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, c := range conds {
			m, _ := c.(map[string]any)
			if m["type"] == "Established" && m["status"] == "True" {
				return true, nil
			}
		}
		return false, nil
	})
	switch {
	case err == nil:
		return nil
	case errors.Is(ctx.Err(), context.Canceled):
		return ctx.Err()
	case last != nil:
		return fmt.Errorf("waiting for customresourcedefinition %s to be established: %w", name, last)
	}
	return fmt.Errorf("customresourcedefinition %s not established within --timeout %s", name, timeout)
}
