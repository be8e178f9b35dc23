package moment

import (
	"strings"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// TestSelector: labels as the API server selects them; fields on name and
// namespace only, anything else refused naming the flag.
func TestSelector(t *testing.T) {
	web := object.View("shop", "web", []byte(`{"metadata":{"name":"web","namespace":"shop","labels":{"app":"web","tier":"front"}}}`), nil)
	tests := []struct {
		name, labels, fields string
		want                 bool
		err                  string
	}{
		{name: "nothing", want: true},
		{name: "label equal", labels: "app=web", want: true},
		{name: "label set", labels: "tier in (front,back),app!=db", want: true},
		{name: "label other", labels: "app=db"},
		{name: "label missing", labels: "owner"},
		{name: "name", fields: "metadata.name=web", want: true},
		{name: "namespace other", fields: "metadata.namespace=other"},
		{name: "both", labels: "app", fields: "metadata.name=web,metadata.namespace=shop", want: true},
		{name: "other field", fields: "status.phase=Running", err: `--at selects fields metadata.name and metadata.namespace only, not "status.phase"`},
		{name: "bad label", labels: "a b", err: `invalid label selector "a b"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			match, err := Selector("--at", tc.labels, tc.fields)
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := match(web); got != tc.want {
				t.Errorf("match = %t, want %t", got, tc.want)
			}
		})
	}
}

// TestPickNames: the names asked, in their order; none asked: all.
func TestPickNames(t *testing.T) {
	a, b, c := &object.Object{Name: "a"}, &object.Object{Name: "b"}, &object.Object{Name: "c"}
	all := []*object.Object{a, b, c}
	if got := pickNames(all, nil); len(got) != 3 {
		t.Errorf("no names: %d objects, want 3", len(got))
	}
	got := pickNames(all, []string{"c", "x", "a"})
	if len(got) != 2 || got[0] != c || got[1] != a {
		t.Errorf("c, x, a: got %v", got)
	}
}
