package mirror

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/controller"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// item is one stored Secret or ConfigMap as the mirror sees it: its
// identity, its annotations and the payload a copy carries.
type item struct {
	key   store.Key
	uid   string
	rv    string
	props properties
	// annotations are the raw ones (auto-reflects is compared as written).
	annotations map[string]string
	payload     payload
}

// payload is what a copy takes from its source. Secrets carry Type and
// Bytes (data); ConfigMaps Text (data) and Bytes (binaryData).
type payload struct {
	Type  string
	Text  map[string]string
	Bytes map[string][]byte
}

// kind is what differs between the kinds the mirror copies.
type kind struct {
	resource kube.Resource
	// decode reads a stored object's identity, annotations and payload.
	decode func(o *object.Object) (meta metav1.ObjectMeta, p payload, err error)
	// apply writes the copy at key with server-side apply; rv, when set, is
	// a precondition (the copy as the reconcile saw it). It returns the
	// copy's payload and resourceVersion after the write.
	apply func(ctx context.Context, cs kubernetes.Interface, key store.Key, rv string, ann map[string]string, p payload, opts metav1.ApplyOptions) (payload, string, error)
	// dataFields name the JSON fields of payload.Text and payload.Bytes
	// ("" when the kind has none).
	dataFields [2]string
	// mergePatch patches the object at key with a JSON merge patch.
	mergePatch func(ctx context.Context, cs kubernetes.Interface, key store.Key, body []byte, opts metav1.PatchOptions) error
	// remove deletes the object at key.
	remove func(ctx context.Context, cs kubernetes.Interface, key store.Key, opts metav1.DeleteOptions) error
}

var (
	secrets = kind{
		resource: kube.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, Kind: "Secret", Namespaced: true},
		decode: func(o *object.Object) (metav1.ObjectMeta, payload, error) {
			s, err := controller.Decode[corev1.Secret](o)
			if err != nil {
				return metav1.ObjectMeta{}, payload{}, err
			}
			return s.ObjectMeta, payload{Type: string(s.Type), Bytes: s.Data}, nil
		},
		apply: func(ctx context.Context, cs kubernetes.Interface, key store.Key, rv string, ann map[string]string, p payload, opts metav1.ApplyOptions) (payload, string, error) {
			ac := corev1ac.Secret(key.Name, key.Namespace).WithAnnotations(ann).WithType(corev1.SecretType(p.Type)).WithData(p.Bytes)
			if rv != "" {
				ac.WithResourceVersion(rv)
			}
			s, err := cs.CoreV1().Secrets(key.Namespace).Apply(ctx, ac, opts)
			if err != nil {
				return payload{}, "", err
			}
			return payload{Type: string(s.Type), Bytes: s.Data}, s.ResourceVersion, nil
		},
		dataFields: [2]string{"", "data"},
		mergePatch: func(ctx context.Context, cs kubernetes.Interface, key store.Key, body []byte, opts metav1.PatchOptions) error {
			_, err := cs.CoreV1().Secrets(key.Namespace).Patch(ctx, key.Name, types.MergePatchType, body, opts)
			return err
		},
		remove: func(ctx context.Context, cs kubernetes.Interface, key store.Key, opts metav1.DeleteOptions) error {
			return cs.CoreV1().Secrets(key.Namespace).Delete(ctx, key.Name, opts)
		},
	}
	configMaps = kind{
		resource: kube.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Kind: "ConfigMap", Namespaced: true},
		decode: func(o *object.Object) (metav1.ObjectMeta, payload, error) {
			cm, err := controller.Decode[corev1.ConfigMap](o)
			if err != nil {
				return metav1.ObjectMeta{}, payload{}, err
			}
			return cm.ObjectMeta, payload{Text: cm.Data, Bytes: cm.BinaryData}, nil
		},
		apply: func(ctx context.Context, cs kubernetes.Interface, key store.Key, rv string, ann map[string]string, p payload, opts metav1.ApplyOptions) (payload, string, error) {
			ac := corev1ac.ConfigMap(key.Name, key.Namespace).WithAnnotations(ann).WithData(p.Text).WithBinaryData(p.Bytes)
			if rv != "" {
				ac.WithResourceVersion(rv)
			}
			cm, err := cs.CoreV1().ConfigMaps(key.Namespace).Apply(ctx, ac, opts)
			if err != nil {
				return payload{}, "", err
			}
			return payload{Text: cm.Data, Bytes: cm.BinaryData}, cm.ResourceVersion, nil
		},
		dataFields: [2]string{"data", "binaryData"},
		mergePatch: func(ctx context.Context, cs kubernetes.Interface, key store.Key, body []byte, opts metav1.PatchOptions) error {
			_, err := cs.CoreV1().ConfigMaps(key.Namespace).Patch(ctx, key.Name, types.MergePatchType, body, opts)
			return err
		},
		remove: func(ctx context.Context, cs kubernetes.Interface, key store.Key, opts metav1.DeleteOptions) error {
			return cs.CoreV1().ConfigMaps(key.Namespace).Delete(ctx, key.Name, opts)
		},
	}

	namespaces = kube.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, Kind: "Namespace"}
)

// decodeItem reads o as an item of k; warnings are the problems its
// annotations have (see parseProperties).
func (k kind) decodeItem(o *object.Object) (*item, []string, error) {
	meta, p, err := k.decode(o)
	if err != nil {
		return nil, nil, fmt.Errorf("decoding %s %s: %w", k.resource.Kind, store.KeyOf(o), err)
	}
	key := store.KeyOf(o)
	props, warnings := parseProperties(key, meta.Annotations)
	return &item{key: key, uid: string(meta.UID), rv: meta.ResourceVersion, props: props, annotations: meta.Annotations, payload: p}, warnings, nil
}

// decodeNamespace reads what matching needs of a stored Namespace.
func decodeNamespace(o *object.Object) (namespaceInfo, error) {
	ns, err := controller.Decode[corev1.Namespace](o)
	if err != nil {
		return namespaceInfo{}, err
	}
	return namespaceInfo{
		name:        ns.Name,
		labels:      ns.Labels,
		terminating: ns.DeletionTimestamp != nil || ns.Status.Phase == corev1.NamespaceTerminating,
	}, nil
}

// dropKeys removes the keys of extra from the copy at key, whose
// resourceVersion must still be rv, with a JSON merge patch (server-side
// apply removes only what its field manager wrote; these keys were written
// by someone else, emberstack before a switch for one).
func (k kind) dropKeys(ctx context.Context, cs kubernetes.Interface, key store.Key, rv string, extra payload, opts metav1.PatchOptions) error {
	patch := map[string]any{"metadata": map[string]any{"resourceVersion": rv}}
	for i, keys := range []map[string]bool{keySet(extra.Text), keySet(extra.Bytes)} {
		if len(keys) == 0 {
			continue
		}
		nulls := map[string]any{}
		for key := range keys {
			nulls[key] = nil
		}
		patch[k.dataFields[i]] = nulls
	}
	body, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	return k.mergePatch(ctx, cs, key, body, opts)
}

func keySet[V any](m map[string]V) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}
