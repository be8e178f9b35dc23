package serve

import (
	"slices"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// A Source's snapshot lists objects in the API server's order, that of
// their keys (store.CompareKeys); a continue token holds the key to resume
// after, "NAMESPACE/NAME" or "NAME".

// compareToKey compares o's key with key.
func compareToKey(o *object.Object, key string) int {
	return store.CompareKeys(store.Key{Namespace: o.Namespace, Name: o.Name}, store.Key{Name: key})
}

// keyString is the key of o as one string.
func keyString(o *object.Object) string {
	if o.Namespace == "" {
		return o.Name
	}
	return o.Namespace + "/" + o.Name
}

// after is the index of the first item whose key is after key.
func after(items []*object.Object, key string) int {
	i, found := slices.BinarySearchFunc(items, key, compareToKey)
	if found {
		i++
	}
	return i
}

// namespaceRange is the range of items in namespace ns (all when ns is
// ""): their keys share the prefix "ns/", so they are contiguous.
func namespaceRange(items []*object.Object, ns string) (lo, hi int) {
	if ns == "" {
		return 0, len(items)
	}
	lo, _ = slices.BinarySearchFunc(items, ns+"/", compareToKey)
	hi = lo
	for hi < len(items) && items[hi].Namespace == ns {
		hi++
	}
	return lo, hi
}
