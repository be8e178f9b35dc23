package configmapgenerator

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubectl/pkg/util/hash"
	"sigs.k8s.io/yaml"
)

func gen(spec Spec) *ConfigMapGenerator {
	return &ConfigMapGenerator{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: "web", UID: "u-1", Generation: 3}, Spec: spec}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec Spec
		want []string // substrings of the message; nil: valid
	}{
		{"empty", Spec{}, nil},
		{"good keys", Spec{Data: map[string]string{"a.txt": "1", "B_2-x": "2", ".hidden": "3"}}, nil},
		{"content alone", Spec{Content: new("x")}, nil},
		{"content and other keys", Spec{Content: new("x"), Data: map[string]string{"a": "1"}}, nil},
		{"bad key", Spec{Data: map[string]string{"a/b": "1"}}, []string{`data key "a/b"`}},
		{"dot key", Spec{Data: map[string]string{"..": "1"}}, []string{`data key ".."`}},
		{"clash", Spec{Content: new(""), Data: map[string]string{"content": "1"}}, []string{`"content" clashes`}},
		{"both", Spec{Content: new(""), Data: map[string]string{"content": "1", "a b": "2"}}, []string{`data key "a b"`, "clashes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate(tc.spec)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			var se *SpecError
			if !errors.As(err, &se) || se.Reason != ReasonInvalidSpec {
				t.Fatalf("Validate = %v, want a SpecError %s", err, ReasonInvalidSpec)
			}
			for _, w := range tc.want {
				if !strings.Contains(se.Message, w) {
					t.Errorf("message %q lacks %q", se.Message, w)
				}
			}
		})
	}
}

func TestDesired(t *testing.T) {
	plainHash := func(data map[string]string, immutable bool) string {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "app"}, Data: data}
		if immutable {
			cm.Immutable = new(true)
		}
		h, err := hash.ConfigMapHash(cm)
		if err != nil {
			t.Fatal(err)
		}
		return "app-" + h
	}
	for _, tc := range []struct {
		name      string
		spec      Spec
		wantName  string
		wantData  map[string]string
		immutable bool
	}{
		{"data", Spec{Data: map[string]string{"a": "1"}}, "app", map[string]string{"a": "1"}, false},
		{"content", Spec{Content: new("hello")}, "app", map[string]string{"content": "hello"}, false},
		{"empty content", Spec{Content: new("")}, "app", map[string]string{"content": ""}, false},
		{"nothing", Spec{}, "app", nil, false},
		{"data and content", Spec{Data: map[string]string{"a": "1"}, Content: new("c")}, "app", map[string]string{"a": "1", "content": "c"}, false},
		{"hash", Spec{Data: map[string]string{"a": "1"}, NameSuffixHash: true}, plainHash(map[string]string{"a": "1"}, false), map[string]string{"a": "1"}, false},
		{"hash of other data", Spec{Data: map[string]string{"a": "2"}, NameSuffixHash: true}, plainHash(map[string]string{"a": "2"}, false), map[string]string{"a": "2"}, false},
		{"immutable", Spec{Data: map[string]string{"a": "1"}, Immutable: true}, "app", map[string]string{"a": "1"}, true},
		{"hash of immutable", Spec{Data: map[string]string{"a": "1"}, Immutable: true, NameSuffixHash: true}, plainHash(map[string]string{"a": "1"}, true), map[string]string{"a": "1"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := gen(tc.spec)
			g.Spec.Labels = map[string]string{"l": "v"}
			g.Spec.Annotations = map[string]string{"a": "v"}
			cm, err := Desired(g)
			if err != nil {
				t.Fatal(err)
			}
			if cm.Name != tc.wantName || cm.Namespace != "web" {
				t.Errorf("name %s/%s, want web/%s", cm.Namespace, cm.Name, tc.wantName)
			}
			if !maps.Equal(cm.Data, tc.wantData) {
				t.Errorf("data %v, want %v", cm.Data, tc.wantData)
			}
			if got := cm.Immutable != nil && *cm.Immutable; got != tc.immutable {
				t.Errorf("immutable %v, want %v", got, tc.immutable)
			}
			if cm.Labels["l"] != "v" || cm.Annotations["a"] != "v" {
				t.Errorf("labels %v annotations %v", cm.Labels, cm.Annotations)
			}
			g.Spec.Labels["l"] = "changed" // the ConfigMap holds copies
			if cm.Labels["l"] != "v" {
				t.Error("Desired shares the spec's labels")
			}
		})
	}
	if _, err := Desired(gen(Spec{Data: map[string]string{"a/b": ""}})); err == nil {
		t.Error("Desired of an invalid spec: no error")
	}
}

func TestApplyConfiguration(t *testing.T) {
	g := gen(Spec{Data: map[string]string{"a": "1"}, Labels: map[string]string{"l": "v"}, Immutable: true})
	cm, err := Desired(g)
	if err != nil {
		t.Fatal(err)
	}
	ac := ApplyConfiguration(cm, OwnerReference(g))
	if *ac.Name != "app" || *ac.Namespace != "web" || *ac.Kind != "ConfigMap" || *ac.APIVersion != "v1" {
		t.Errorf("identity %v/%v %v %v", *ac.Namespace, *ac.Name, *ac.Kind, *ac.APIVersion)
	}
	if len(ac.OwnerReferences) != 1 {
		t.Fatalf("owner references %v", ac.OwnerReferences)
	}
	ref := ac.OwnerReferences[0]
	if *ref.UID != "u-1" || !*ref.Controller || !*ref.BlockOwnerDeletion || *ref.Kind != Kind || *ref.APIVersion != "kubectl-reflect.io/v1alpha1" || *ref.Name != "app" {
		t.Errorf("owner reference %+v", ref)
	}
	if ac.Data["a"] != "1" || ac.Labels["l"] != "v" || ac.Annotations != nil || !*ac.Immutable {
		t.Errorf("content %v %v %v %v", ac.Data, ac.Labels, ac.Annotations, ac.Immutable)
	}
}

func owned(name string, uid types.UID, controller bool) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "web"}}
	if uid != "" {
		cm.OwnerReferences = []metav1.OwnerReference{{APIVersion: "kubectl-reflect.io/v1alpha1", Kind: Kind, Name: "app", UID: uid, Controller: &controller}}
	}
	return cm
}

func TestToPrune(t *testing.T) {
	other := owned("app-x", "u-1", true)
	other.OwnerReferences[0].Kind = "Other"
	for _, tc := range []struct {
		name string
		cms  []*corev1.ConfigMap
		keep string
		want []string
	}{
		{"none", nil, "app", nil},
		{"only the current", []*corev1.ConfigMap{owned("app", "u-1", true)}, "app", nil},
		{"older hashed ones", []*corev1.ConfigMap{owned("app-b", "u-1", true), owned("app-c", "u-1", true), owned("app-a", "u-1", true)}, "app-c", []string{"app-a", "app-b"}},
		{"unhashed after hashing", []*corev1.ConfigMap{owned("app", "u-1", true), owned("app-h", "u-1", true)}, "app-h", []string{"app"}},
		{"another generator's", []*corev1.ConfigMap{owned("app-1", "u-2", true)}, "app", nil},
		{"not controller", []*corev1.ConfigMap{owned("app-1", "u-1", false)}, "app", nil},
		{"no owner", []*corev1.ConfigMap{owned("app-1", "", false)}, "app", nil},
		{"another kind", []*corev1.ConfigMap{other}, "app", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, cm := range ToPrune(tc.cms, "u-1", tc.keep) {
				got = append(got, cm.Name)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("ToPrune = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestNeedsReplace(t *testing.T) {
	cm := func(immutable bool, data ...string) *corev1.ConfigMap {
		c := &corev1.ConfigMap{Data: map[string]string{}}
		for i := 0; i+1 < len(data); i += 2 {
			c.Data[data[i]] = data[i+1]
		}
		if immutable {
			c.Immutable = new(true)
		}
		return c
	}
	for _, tc := range []struct {
		name             string
		current, desired *corev1.ConfigMap
		want             bool
	}{
		{"none stored", nil, cm(true, "a", "1"), false},
		{"mutable", cm(false, "a", "1"), cm(false, "a", "2"), false},
		{"mutable to immutable", cm(false, "a", "1"), cm(true, "a", "2"), false},
		{"immutable unchanged", cm(true, "a", "1"), cm(true, "a", "1"), false},
		{"immutable, data changes", cm(true, "a", "1"), cm(true, "a", "2"), true},
		{"immutable, key added", cm(true, "a", "1"), cm(true, "a", "1", "b", "2"), true},
		{"immutable to mutable", cm(true, "a", "1"), cm(false, "a", "1"), true},
		{"immutable, empty and nil data", &corev1.ConfigMap{Immutable: new(true)}, cm(true), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := NeedsReplace(tc.current, tc.desired); got != tc.want {
				t.Errorf("NeedsReplace = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestNewStatus(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Hour))
	g := gen(Spec{})
	st := NewStatus(g, true, ReasonGenerated, "ok", "app", t0)
	if st.ObservedGeneration != 3 || st.GeneratedName != "app" || len(st.Conditions) != 1 {
		t.Fatalf("status %+v", st)
	}
	c := st.Conditions[0]
	if c.Type != ConditionReady || c.Status != metav1.ConditionTrue || c.Reason != ReasonGenerated || c.ObservedGeneration != 3 || !c.LastTransitionTime.Equal(&t0) {
		t.Errorf("condition %+v", c)
	}
	g.Status = st
	if again := NewStatus(g, true, ReasonGenerated, "ok", "app", t1); !StatusEqual(again, st) {
		t.Errorf("the same outcome later is another status: %+v", again)
	}
	bad := NewStatus(g, false, ReasonInvalidSpec, "bad", "", t1)
	if bad.GeneratedName != "app" {
		t.Errorf("a failure forgets the generated name: %+v", bad)
	}
	if c := bad.Conditions[0]; c.Status != metav1.ConditionFalse || !c.LastTransitionTime.Equal(&t1) || c.Reason != ReasonInvalidSpec {
		t.Errorf("condition after failure %+v", c)
	}
	if StatusEqual(bad, st) {
		t.Error("a failure equals the success")
	}
	if g.Status.Conditions[0].Status != metav1.ConditionTrue {
		t.Error("NewStatus changed the generator's stored conditions")
	}
}

// TestCRD: the embedded CRD says what the rest of the package assumes.
func TestCRD(t *testing.T) {
	var crd struct {
		Metadata struct{ Name string }
		Spec     struct {
			Group string
			Scope string
			Names struct {
				Kind, Plural string
				ShortNames   []string
				Categories   []string
			}
			Versions []struct {
				Name         string
				Subresources map[string]any
				Columns      []struct{ Name, JSONPath string } `json:"additionalPrinterColumns"`
			}
		}
	}
	if err := yaml.Unmarshal(Builtin().CRD, &crd); err != nil {
		t.Fatal(err)
	}
	s := crd.Spec
	if crd.Metadata.Name != GVR.Resource+"."+Group || s.Group != Group || s.Scope != "Namespaced" || s.Names.Kind != Kind || s.Names.Plural != GVR.Resource {
		t.Errorf("CRD identity %+v", crd)
	}
	if !slices.Equal(s.Names.ShortNames, []string{"cmg"}) || !slices.Equal(s.Names.Categories, []string{"kubectl-reflect"}) {
		t.Errorf("names %+v", s.Names)
	}
	if len(s.Versions) != 1 || s.Versions[0].Name != Version || s.Versions[0].Subresources["status"] == nil {
		t.Fatalf("versions %+v", s.Versions)
	}
	var cols []string
	for _, c := range s.Versions[0].Columns {
		cols = append(cols, c.Name)
	}
	if !slices.Equal(cols, []string{"ConfigMap", "Ready", "Reason", "Age"}) {
		t.Errorf("columns %v", cols)
	}
}

func TestAdoptable(t *testing.T) {
	const fm = "kubectl-reflect-configmap-generator"
	entry := func(manager string, op metav1.ManagedFieldsOperationType) []metav1.ManagedFieldsEntry {
		return []metav1.ManagedFieldsEntry{{Manager: "kubectl-edit", Operation: metav1.ManagedFieldsOperationUpdate}, {Manager: manager, Operation: op}}
	}
	orphan := owned("app", "", false)
	orphan.ManagedFields = entry(fm, metav1.ManagedFieldsOperationApply)
	controlled := owned("app", "u-2", true)
	controlled.ManagedFields = entry(fm, metav1.ManagedFieldsOperationApply)
	updatedOnly := owned("app", "", false)
	updatedOnly.ManagedFields = entry(fm, metav1.ManagedFieldsOperationUpdate)
	foreign := owned("app", "", false)
	foreign.ManagedFields = entry("kubectl-client-side-apply", metav1.ManagedFieldsOperationUpdate)
	for _, tc := range []struct {
		name string
		cm   *corev1.ConfigMap
		want bool
	}{
		{"orphan it applied", orphan, true},
		{"another controller's", controlled, false},
		{"only updated by that name", updatedOnly, false},
		{"someone else's", foreign, false},
	} {
		if got := Adoptable(tc.cm, fm); got != tc.want {
			t.Errorf("%s: Adoptable = %v, want %v", tc.name, got, tc.want)
		}
	}
}
