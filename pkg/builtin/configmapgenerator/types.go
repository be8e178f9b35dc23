package configmapgenerator

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
)

// Group, Version and Kind of the CRD.
const (
	Group   = "kubectl-reflect.io"
	Version = "v1alpha1"
	Kind    = "ConfigMapGenerator"
)

// GVR is the generators' resource.
var GVR = schema.GroupVersionResource{Group: Group, Version: Version, Resource: "configmapgenerators"}

// Resource is the generators' resource as the reflectors read it.
var Resource = kube.Resource{GVR: GVR, Kind: Kind, Namespaced: true}

// configMaps is the generated kind's resource.
var configMaps = kube.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Kind: "ConfigMap", Namespaced: true}

// ConfigMapGenerator is one generator as stored.
type ConfigMapGenerator struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   Spec   `json:"spec"`
	Status Status `json:"status,omitempty"`
}

// Spec is what the generated ConfigMap holds.
type Spec struct {
	// Data is the ConfigMap's data.
	Data map[string]string `json:"data,omitempty"`
	// Content, when set, is stored under the key "content".
	Content *string `json:"content,omitempty"`
	// NameSuffixHash names the ConfigMap NAME-HASH after its content.
	NameSuffixHash bool `json:"nameSuffixHash,omitempty"`
	// Immutable makes the ConfigMap immutable.
	Immutable bool `json:"immutable,omitempty"`
	// Labels and Annotations of the ConfigMap.
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// Status is what the controller last did with the spec.
type Status struct {
	ObservedGeneration int64              `json:"observedGeneration,omitempty"`
	GeneratedName      string             `json:"generatedName,omitempty"`
	Conditions         []metav1.Condition `json:"conditions,omitempty"`
}

// ContentKey is the data key that Spec.Content is stored under.
const ContentKey = "content"

// ConditionReady is the status condition saying whether the ConfigMap is
// as the spec says.
const ConditionReady = "Ready"

// Reasons of the Ready condition.
const (
	ReasonGenerated    = "Generated"    // True: the ConfigMap is as the spec says
	ReasonInvalidSpec  = "InvalidSpec"  // False: a data key is invalid or given twice
	ReasonNameConflict = "NameConflict" // False: a ConfigMap of the name exists and is not the generator's
)
