package store

import (
	"context"
	"slices"
	"strconv"
	"sync"
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

// TestNamespaceIndexOnFirstUse: the namespace index costs nothing until it
// is asked for, and is kept from then on, through relists, while readers
// ask for it concurrently with the writer (run with -race).
func TestNamespaceIndexOnFirstUse(t *testing.T) {
	s := New[*obj](Options[*obj]{})
	mustApply(t, s, relist("1", "a/x@1", "b/y@1")...)
	if s.indexes.has(NamespaceIndex) {
		t.Fatal("the namespace index exists before its first use")
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				if _, err := s.ByIndex(NamespaceIndex, "a", nil); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for i := range 200 {
		rv := strconv.Itoa(i + 2)
		mustApply(t, s, relist(rv, "a/x@"+rv, "c/z@"+rv)...)
		mustApply(t, s, applyEv("a/w@"+rv), deleteEv("a/w@"+rv))
	}
	close(done)
	wg.Wait()
	objs, err := s.ByIndex(NamespaceIndex, "c", nil)
	if err != nil || len(objs) != 1 || objs[0].name != "z" {
		t.Errorf("namespace c = %v, %v; want c/z", objs, err)
	}
	if objs, _ := s.ByIndex(NamespaceIndex, "b", nil); len(objs) != 0 {
		t.Errorf("namespace b after the relists = %v, want none", objs)
	}
}
