package configmapgenerator

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/kubectl/pkg/util/hash"
)

// SpecError is a spec the controller cannot generate a ConfigMap from;
// retrying cannot fix it, a change to the spec (or, for NameConflict, the
// other ConfigMap going away) can.
type SpecError struct {
	Reason  string // ReasonInvalidSpec or ReasonNameConflict
	Message string
}

func (e *SpecError) Error() string { return e.Message }

// Validate checks what the API server's schema cannot: that every data key
// is a valid ConfigMap key and that "content" is not given twice.
func Validate(spec Spec) error {
	var problems []string
	for _, k := range slices.Sorted(maps.Keys(spec.Data)) {
		if errs := validation.IsConfigMapKey(k); len(errs) > 0 {
			problems = append(problems, fmt.Sprintf("data key %q: %s", k, strings.Join(errs, "; ")))
		}
	}
	if _, ok := spec.Data[ContentKey]; ok && spec.Content != nil {
		problems = append(problems, fmt.Sprintf("data key %q clashes with content, which is stored under that key", ContentKey))
	}
	if len(problems) > 0 {
		return &SpecError{Reason: ReasonInvalidSpec, Message: "invalid spec: " + strings.Join(problems, ", ")}
	}
	return nil
}

// Desired is the ConfigMap that gen's spec asks for, without its owner: its
// name is gen's or, with nameSuffixHash, gen's and a hash of its content.
// It returns a *SpecError for an invalid spec.
func Desired(gen *ConfigMapGenerator) (*corev1.ConfigMap, error) {
	if err := Validate(gen.Spec); err != nil {
		return nil, err
	}
	cm := &corev1.ConfigMap{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{
			Name: gen.Name, Namespace: gen.Namespace,
			Labels: maps.Clone(gen.Spec.Labels), Annotations: maps.Clone(gen.Spec.Annotations),
		},
		Data: maps.Clone(gen.Spec.Data),
	}
	if gen.Spec.Content != nil {
		if cm.Data == nil {
			cm.Data = map[string]string{}
		}
		cm.Data[ContentKey] = *gen.Spec.Content
	}
	if gen.Spec.Immutable {
		cm.Immutable = new(true)
	}
	if gen.Spec.NameSuffixHash {
		h, err := hash.ConfigMapHash(cm) // of the name without suffix, as kustomize does
		if err != nil {
			return nil, fmt.Errorf("hashing the content of %s/%s: %w", gen.Namespace, gen.Name, err)
		}
		cm.Name = gen.Name + "-" + h
	}
	return cm, nil
}

// OwnerReference is the controller reference from a generated ConfigMap to
// gen: the garbage collector deletes the ConfigMap with gen, and not before
// gen is gone when gen is deleted in the foreground.
func OwnerReference(gen *ConfigMapGenerator) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion: Group + "/" + Version, Kind: Kind, Name: gen.Name, UID: gen.UID,
		Controller: new(true), BlockOwnerDeletion: new(true),
	}
}

// ApplyConfiguration is what the controller applies for cm, owned by gen.
func ApplyConfiguration(cm *corev1.ConfigMap, owner metav1.OwnerReference) *corev1ac.ConfigMapApplyConfiguration {
	ac := corev1ac.ConfigMap(cm.Name, cm.Namespace).
		WithOwnerReferences(metav1ac.OwnerReference().
			WithAPIVersion(owner.APIVersion).WithKind(owner.Kind).WithName(owner.Name).WithUID(owner.UID).
			WithController(*owner.Controller).WithBlockOwnerDeletion(*owner.BlockOwnerDeletion))
	if len(cm.Labels) > 0 {
		ac.WithLabels(cm.Labels)
	}
	if len(cm.Annotations) > 0 {
		ac.WithAnnotations(cm.Annotations)
	}
	if len(cm.Data) > 0 {
		ac.WithData(cm.Data)
	}
	if cm.Immutable != nil {
		ac.WithImmutable(*cm.Immutable)
	}
	return ac
}

// ControlledBy says whether cm's controller reference names the generator
// of uid.
func ControlledBy(cm *corev1.ConfigMap, uid types.UID) bool {
	ref := metav1.GetControllerOfNoCopy(cm)
	return ref != nil && ref.UID == uid && ref.Kind == Kind && strings.HasPrefix(ref.APIVersion, Group+"/")
}

// Adoptable says whether cm, which no controller reference names, was
// written by fieldManager: a ConfigMap of this generator whose reference
// was removed (an edit, or its generator deleted with --cascade=orphan and
// made again), which the generator takes back as controllers adopt orphans.
func Adoptable(cm *corev1.ConfigMap, fieldManager string) bool {
	if metav1.GetControllerOfNoCopy(cm) != nil {
		return false
	}
	for _, f := range cm.ManagedFields {
		if f.Manager == fieldManager && f.Operation == metav1.ManagedFieldsOperationApply {
			return true
		}
	}
	return false
}

// ToPrune returns the ConfigMaps of cms that the generator of uid
// controls, other than keep (the ones an earlier spec generated), by name.
func ToPrune(cms []*corev1.ConfigMap, uid types.UID, keep string) []*corev1.ConfigMap {
	var out []*corev1.ConfigMap
	for _, cm := range cms {
		if cm.Name != keep && ControlledBy(cm, uid) {
			out = append(out, cm)
		}
	}
	slices.SortFunc(out, func(a, b *corev1.ConfigMap) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// NeedsReplace says whether the stored ConfigMap current must be deleted
// and created again to become desired: it is immutable and its data or
// immutability would change, which the API server refuses to update.
func NeedsReplace(current, desired *corev1.ConfigMap) bool {
	if current == nil || current.Immutable == nil || !*current.Immutable {
		return false
	}
	return desired.Immutable == nil || !*desired.Immutable ||
		!equality.Semantic.DeepEqual(nonNil(current.Data), nonNil(desired.Data)) || len(current.BinaryData) > 0
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// NewStatus is the status to write after a reconcile of gen: Ready with
// reason and message, the generated name (kept from old when name is ""),
// and the condition's lastTransitionTime kept from old unless its status
// changes.
func NewStatus(gen *ConfigMapGenerator, ready bool, reason, message, name string, now metav1.Time) Status {
	st := Status{ObservedGeneration: gen.Generation, GeneratedName: name, Conditions: slices.Clone(gen.Status.Conditions)}
	if name == "" {
		st.GeneratedName = gen.Status.GeneratedName
	}
	cond := metav1.Condition{
		Type: ConditionReady, Status: metav1.ConditionFalse, ObservedGeneration: gen.Generation,
		Reason: reason, Message: message, LastTransitionTime: now,
	}
	if ready {
		cond.Status = metav1.ConditionTrue
	}
	meta.SetStatusCondition(&st.Conditions, cond)
	return st
}

// StatusEqual says whether writing b over a would change nothing.
func StatusEqual(a, b Status) bool {
	return equality.Semantic.DeepEqual(a, b)
}
