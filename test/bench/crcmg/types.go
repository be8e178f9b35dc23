package main

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// groupVersion is the ConfigMapGenerator's API group and version.
var groupVersion = schema.GroupVersion{Group: "kubectl-reflect.io", Version: "v1alpha1"}

// ConfigMapGenerator is the custom resource, as a kubebuilder user writes it
// (with the deep copies controller-gen would generate, by hand).
type ConfigMapGenerator struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ConfigMapGeneratorSpec   `json:"spec,omitempty"`
	Status            ConfigMapGeneratorStatus `json:"status,omitempty"`
}

// ConfigMapGeneratorSpec is the ConfigMap to generate.
type ConfigMapGeneratorSpec struct {
	Data           map[string]string `json:"data,omitempty"`
	Content        string            `json:"content,omitempty"`
	NameSuffixHash bool              `json:"nameSuffixHash,omitempty"`
	Immutable      bool              `json:"immutable,omitempty"`
	Labels         map[string]string `json:"labels,omitempty"`
	Annotations    map[string]string `json:"annotations,omitempty"`
}

// ConfigMapGeneratorStatus is what the controller reports.
type ConfigMapGeneratorStatus struct {
	ObservedGeneration int64              `json:"observedGeneration,omitempty"`
	GeneratedName      string             `json:"generatedName,omitempty"`
	Conditions         []metav1.Condition `json:"conditions,omitempty"`
}

// ConfigMapGeneratorList is a list of them.
type ConfigMapGeneratorList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ConfigMapGenerator `json:"items"`
}

func addToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(groupVersion, &ConfigMapGenerator{}, &ConfigMapGeneratorList{})
	metav1.AddToGroupVersion(s, groupVersion)
	return nil
}

func (in *ConfigMapGenerator) DeepCopyInto(out *ConfigMapGenerator) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	in.Spec.DeepCopyInto(&out.Spec)
	in.Status.DeepCopyInto(&out.Status)
}

func (in *ConfigMapGenerator) DeepCopy() *ConfigMapGenerator {
	if in == nil {
		return nil
	}
	out := new(ConfigMapGenerator)
	in.DeepCopyInto(out)
	return out
}

func (in *ConfigMapGenerator) DeepCopyObject() runtime.Object { return in.DeepCopy() }

func (in *ConfigMapGeneratorSpec) DeepCopyInto(out *ConfigMapGeneratorSpec) {
	*out = *in
	out.Data = copyMap(in.Data)
	out.Labels = copyMap(in.Labels)
	out.Annotations = copyMap(in.Annotations)
}

func (in *ConfigMapGeneratorStatus) DeepCopyInto(out *ConfigMapGeneratorStatus) {
	*out = *in
	if in.Conditions != nil {
		out.Conditions = make([]metav1.Condition, len(in.Conditions))
		for i := range in.Conditions {
			in.Conditions[i].DeepCopyInto(&out.Conditions[i])
		}
	}
}

func (in *ConfigMapGeneratorList) DeepCopyObject() runtime.Object {
	if in == nil {
		return nil
	}
	out := new(ConfigMapGeneratorList)
	*out = *in
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]ConfigMapGenerator, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
