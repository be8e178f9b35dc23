package reflector

import (
	"fmt"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// BenchmarkNamespaceRead: a reconciler reading one namespace of 1,000
// objects out of a store of all namespaces holding 21,000 (the controller
// benchmark's shape: configmap-generator's prune), by filtering List
// against InNamespace.
func BenchmarkNamespaceRead(b *testing.B) {
	var objs []*object.Object
	for i := range 20000 {
		objs = append(objs, cm("other", fmt.Sprintf("cm-%05d", i)))
	}
	for i := range 1000 {
		objs = append(objs, cm("gen", fmt.Sprintf("gen-%05d", i)))
	}
	set := NewSet(SetOptions{NewClient: newFakeServer(objs...).newClient})
	l := set.Acquire(configMaps, kube.Scope{})
	defer l.Release()
	if err := WaitForSync(b.Context(), l); err != nil {
		b.Fatal(err)
	}
	count := func(objs []*object.Object, keep func(*object.Object) bool) int {
		n := 0
		for _, o := range objs {
			if keep(o) {
				n++
			}
		}
		return n
	}
	b.Run("List", func(b *testing.B) {
		for b.Loop() {
			if n := count(l.List(), func(o *object.Object) bool { return o.Namespace == "gen" }); n != 1000 {
				b.Fatalf("%d objects, want 1000", n)
			}
		}
	})
	b.Run("InNamespace", func(b *testing.B) {
		for b.Loop() {
			if n := len(l.InNamespace("gen")); n != 1000 {
				b.Fatalf("%d objects, want 1000", n)
			}
		}
	})
}
