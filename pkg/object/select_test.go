package object

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
)

func mustDecode(t *testing.T, raw string) *Object {
	t.Helper()
	o, err := Decode([]byte(raw), Prune{})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestMatchLabelsAndFields(t *testing.T) {
	web := mustDecode(t, `{"metadata":{"name":"web","namespace":"a","labels":{"app":"web","app.kubernetes.io/tier":"front"}},"status":{"phase":"Running"}}`)
	bare := mustDecode(t, `{"metadata":{"name":"bare","namespace":"b"}}`)
	tests := []struct {
		label, field string
		want         []string
	}{
		{"", "", []string{"web", "bare"}},
		{"app=web", "", []string{"web"}},
		{"app!=web", "", []string{"bare"}},
		{"app.kubernetes.io/tier in (front,back)", "", []string{"web"}},
		{"!app", "", []string{"bare"}},
		{"app", "", []string{"web"}},
		{"", "metadata.name=bare", []string{"bare"}},
		{"", "metadata.namespace!=a", []string{"bare"}},
		{"", "status.phase=Running", []string{"web"}},
		{"app=web", "metadata.name=bare", nil},
	}
	for _, tt := range tests {
		t.Run(tt.label+"|"+tt.field, func(t *testing.T) {
			ls, err := labels.Parse(tt.label)
			if err != nil {
				t.Fatal(err)
			}
			fs, err := fields.ParseSelector(tt.field)
			if err != nil {
				t.Fatal(err)
			}
			ml, mf := MatchLabels(ls), MatchFields(fs)
			var got []string
			for _, o := range []*Object{web, bare} {
				if ml(o) && mf(o) {
					got = append(got, o.Name)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestOwnerUIDs(t *testing.T) {
	o := mustDecode(t, `{"metadata":{"name":"p","ownerReferences":[{"uid":"u1","kind":"ReplicaSet"},{"uid":"u2"}]}}`)
	if got := OwnerUIDs(o); !slices.Equal(got, []string{"u1", "u2"}) {
		t.Errorf("OwnerUIDs = %v", got)
	}
	if got := OwnerUIDs(mustDecode(t, `{"metadata":{"name":"x"}}`)); got != nil {
		t.Errorf("OwnerUIDs without owners = %v", got)
	}
}
