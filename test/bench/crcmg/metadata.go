package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The -advised configuration: controller-runtime as its docs advise for a
// controller that owns many objects it never reads the content of
// (builder.OnlyMetadata: "useful when watching lots of objects, really big
// objects"): the owned ConfigMaps are watched and cached as
// metav1.PartialObjectMetadata, read through that type only (a typed Get
// would start a second, typed cache), and every cached object has its
// managedFields stripped (cache.TransformStripManagedFields, the cache
// option's DefaultTransform).

// appliedAnnotation holds a hash of the apply configuration the controller
// last applied: with only the metadata cached, it is how an apply that
// would change nothing is skipped (the default configuration compares the
// fields it owns in the cached ConfigMap, managedFields and data).
const appliedAnnotation = "crcmg.bench.kubectl-reflect.io/applied"

var (
	configMapGVK     = schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	configMapListGVK = schema.GroupVersionKind{Version: "v1", Kind: "ConfigMapList"}
)

// metadataOnly is a ConfigMap's metadata, for Get from the metadata cache.
func metadataOnly() *metav1.PartialObjectMetadata {
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(configMapGVK)
	return m
}

// configMapMeta reads a ConfigMap's metadata from the cache: all of the
// ConfigMap with the default configuration, only its metadata with -advised.
func (r *reconciler) configMapMeta(ctx context.Context, key client.ObjectKey) (metav1.Object, error) {
	if r.metadata {
		m := metadataOnly()
		return m, r.Get(ctx, key, m)
	}
	return r.getConfigMap(ctx, key)
}

// ownedConfigMaps lists the namespace's ConfigMaps from the cache, as
// metadata with -advised.
func (r *reconciler) ownedConfigMaps(ctx context.Context, namespace string) ([]client.Object, error) {
	var list client.ObjectList
	if r.metadata {
		l := &metav1.PartialObjectMetadataList{}
		l.SetGroupVersionKind(configMapListGVK)
		list = l
	} else {
		list = newConfigMapList()
	}
	if err := r.List(ctx, list, client.InNamespace(namespace)); err != nil {
		return nil, err
	}
	return listItems(list), nil
}

// stampApplied annotates ac with the hash of itself (before the
// annotation): what appliedByHash compares with.
func stampApplied(ac *corev1ac.ConfigMapApplyConfiguration) {
	b, _ := json.Marshal(ac)
	sum := sha256.Sum256(b)
	ac.WithAnnotations(map[string]string{appliedAnnotation: hex.EncodeToString(sum[:16])})
}

// appliedByHash says whether the cached ConfigMap's metadata carries the
// hash ac was stamped with: applying it would change nothing.
func (r *reconciler) appliedByHash(ctx context.Context, ac *corev1ac.ConfigMapApplyConfiguration) bool {
	m := metadataOnly()
	if err := r.Get(ctx, client.ObjectKey{Namespace: *ac.Namespace, Name: *ac.Name}, m); err != nil {
		return false
	}
	want := ac.Annotations[appliedAnnotation]
	return want != "" && m.GetAnnotations()[appliedAnnotation] == want
}
