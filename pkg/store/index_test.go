package store

import (
	"context"
	"slices"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// TestByIndex: the namespace index and a custom one follow live changes
// and relists.
func TestByIndex(t *testing.T) {
	ctx := context.Background()
	byName := func(o *obj) []string { return []string{o.name[:1]} } // first letter
	s := New[*obj](Options[*obj]{Indexes: map[string]IndexFunc[*obj]{"initial": byName}})
	apply := func(evs ...watch.Event[*obj]) {
		for _, ev := range evs {
			if err := s.Apply(ctx, ev); err != nil {
				t.Fatal(err)
			}
		}
	}
	names := func(index, value string) []string {
		objs, err := s.ByIndex(index, value, nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, o := range objs {
			out = append(out, o.ns+"/"+o.name)
		}
		return out
	}
	apply(relist("1", "a/apple@1", "a/avocado@1", "b/banana@1")...)
	if got := names(NamespaceIndex, "a"); !slices.Equal(got, []string{"a/apple", "a/avocado"}) {
		t.Errorf("namespace a: %v", got)
	}
	if got := names("initial", "b"); !slices.Equal(got, []string{"b/banana"}) {
		t.Errorf("initial b: %v", got)
	}
	apply(applyEv("b/apricot@2"), deleteEv("a/apple@3"))
	if got := names("initial", "a"); !slices.Equal(got, []string{"a/avocado", "b/apricot"}) {
		t.Errorf("initial a after changes: %v", got)
	}
	apply(relist("4", "c/cherry@4")...)
	if got := names(NamespaceIndex, "a"); len(got) != 0 {
		t.Errorf("namespace a after relist: %v", got)
	}
	if got := names("initial", "c"); !slices.Equal(got, []string{"c/cherry"}) {
		t.Errorf("initial c after relist: %v", got)
	}
	if _, err := s.ByIndex("nope", "x", nil); err == nil {
		t.Error("unknown index: no error")
	}
}
