//go:build linux

package main

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
)

// The custom resource of the memory part: the ConfigMaps' data as a
// Widget's spec.payload, so that the store's heap per object can be read for
// a CRD (which client-go can only cache with its dynamic informer) as well
// as for a built-in kind.
var (
	widgets     = schema.GroupVersionResource{Group: "bench.kubectl-reflect.io", Version: "v1", Resource: "widgets"}
	widgetsKind = kube.Resource{GVR: widgets, Kind: "Widget", Namespaced: true}
	crds        = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
)

const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.bench.kubectl-reflect.io
spec:
  group: bench.kubectl-reflect.io
  names: {kind: Widget, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              payload: {type: string}
`

// populateWidgets creates the Widget CRD and cfg.objects Widgets in the
// benchmark's namespace.
func populateWidgets(ctx context.Context, e *env) error {
	dc, err := dynamic.NewForConfig(e.clients.cfg)
	if err != nil {
		return fmt.Errorf("dynamic client: %w", err)
	}
	crd := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(widgetCRD), &crd.Object); err != nil {
		return fmt.Errorf("the Widget CRD: %w", err)
	}
	if _, err := dc.Resource(crds).Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create the Widget CRD: %w", err)
	}
	e.logf("creating %d Widgets of %d bytes with %d workers", e.cfg.objects, e.cfg.size, e.cfg.workers)
	start := time.Now()
	client := dc.Resource(widgets).Namespace(e.namespace)
	err = parallel(ctx, e.cfg.workers, e.cfg.objects, func(ctx context.Context, i int) error {
		w := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": widgets.GroupVersion().String(), "kind": "Widget",
			"metadata": map[string]any{"name": objectName(i), "labels": map[string]any{"app": "bench"}},
			"spec":     map[string]any{"payload": payload(i, e.cfg.size)},
		}}
		for {
			_, err := client.Create(ctx, w, metav1.CreateOptions{})
			if !apierrors.IsNotFound(err) { // NotFound until the CRD is served
				return err
			}
			if err := sleep(ctx, 50*time.Millisecond); err != nil {
				return err
			}
		}
	})
	if err != nil {
		return fmt.Errorf("create Widgets: %w", err)
	}
	e.logf("created %d Widgets in %s", e.cfg.objects, time.Since(start).Round(time.Millisecond))
	return nil
}
