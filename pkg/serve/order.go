package serve

import (
	"slices"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// The API server lists objects in the order of their etcd keys, which end
// in NAMESPACE/NAME (NAME for a cluster-scoped object), compared as one
// string: namespace "a-b" comes before "a" there ('-' < '/'), unlike a
// comparison by namespace then name. These compare keys that way without
// building them.

// keyByte is byte i of the key of (ns, name), and whether there is one.
func keyByte(ns, name string, i int) (byte, bool) {
	if ns != "" {
		switch {
		case i < len(ns):
			return ns[i], true
		case i == len(ns):
			return '/', true
		}
		i -= len(ns) + 1
	}
	if i < len(name) {
		return name[i], true
	}
	return 0, false
}

// compareKey compares the key of (ans, aname) with that of (bns, bname).
func compareKey(ans, aname, bns, bname string) int {
	for i := 0; ; i++ {
		a, aok := keyByte(ans, aname, i)
		b, bok := keyByte(bns, bname, i)
		switch {
		case !aok && !bok:
			return 0
		case !aok:
			return -1
		case !bok:
			return 1
		case a != b:
			if a < b {
				return -1
			}
			return 1
		}
	}
}

func compareObjects(a, b *object.Object) int {
	return compareKey(a.Namespace, a.Name, b.Namespace, b.Name)
}

// keyString is the key of o as one string.
func keyString(o *object.Object) string {
	if o.Namespace == "" {
		return o.Name
	}
	return o.Namespace + "/" + o.Name
}

// sortByKey sorts items in key order (they come sorted by namespace, then
// name, which differs from it only where a namespace is a prefix of
// another).
func sortByKey(items []*object.Object) {
	if !slices.IsSortedFunc(items, compareObjects) {
		slices.SortFunc(items, compareObjects)
	}
}

// after is the index of the first item whose key is after key.
func after(items []*object.Object, key string) int {
	i, found := slices.BinarySearchFunc(items, key, func(o *object.Object, k string) int {
		return compareKey(o.Namespace, o.Name, "", k)
	})
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
	prefix := ns + "/"
	lo, _ = slices.BinarySearchFunc(items, prefix, func(o *object.Object, k string) int {
		return compareKey(o.Namespace, o.Name, "", k)
	})
	hi = lo
	for hi < len(items) && items[hi].Namespace == ns {
		hi++
	}
	return lo, hi
}
