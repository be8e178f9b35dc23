package object

import (
	"slices"
	"testing"

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

func TestMatchLabels(t *testing.T) {
	web := mustDecode(t, `{"metadata":{"name":"web","namespace":"a","labels":{"app":"web","app.kubernetes.io/tier":"front"}},"status":{"phase":"Running"}}`)
	bare := mustDecode(t, `{"metadata":{"name":"bare","namespace":"b"}}`)
	tests := []struct {
		label string
		want  []string
	}{
		{"", []string{"web", "bare"}},
		{"app=web", []string{"web"}},
		{"app!=web", []string{"bare"}},
		{"app.kubernetes.io/tier in (front,back)", []string{"web"}},
		{"!app", []string{"bare"}},
		{"app", []string{"web"}},
	}
	for _, tt := range tests {
		t.Run(tt.label, func(t *testing.T) {
			ls, err := labels.Parse(tt.label)
			if err != nil {
				t.Fatal(err)
			}
			ml := MatchLabels(ls)
			var got []string
			for _, o := range []*Object{web, bare} {
				if ml(o) {
					got = append(got, o.Name)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
