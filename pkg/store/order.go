package store

import "strings"

// The API server lists objects in the order of their storage keys, which
// end in NAMESPACE/NAME (NAME for a cluster-scoped object), compared as one
// string: namespace "app-dev" comes before "app" there ('-' < '/'), unlike a
// comparison by namespace then name. A Store lists in that order, so that
// what it prints reads as `kubectl get` prints, and serve's continue tokens
// (a key) cut its lists where the API server's would.

// CompareKeys compares a and b in the API server's order: as the strings
// NAMESPACE/NAME (or NAME), without building them.
func CompareKeys(a, b Key) int {
	if a.Namespace == b.Namespace {
		return strings.Compare(a.Name, b.Name)
	}
	if n := min(len(a.Namespace), len(b.Namespace)); n > 0 && a.Namespace[:n] != b.Namespace[:n] {
		return strings.Compare(a.Namespace[:n], b.Namespace[:n]) // they differ within both
	}
	return compareBytewise(a, b) // one namespace is a prefix of the other, or empty
}

// keyByte is byte i of the key of k, and whether there is one.
func keyByte(k Key, i int) (byte, bool) {
	if k.Namespace != "" {
		switch {
		case i < len(k.Namespace):
			return k.Namespace[i], true
		case i == len(k.Namespace):
			return '/', true
		}
		i -= len(k.Namespace) + 1
	}
	if i < len(k.Name) {
		return k.Name[i], true
	}
	return 0, false
}

// compareBytewise is CompareKeys one byte at a time.
func compareBytewise(a, b Key) int {
	for i := 0; ; i++ {
		x, xok := keyByte(a, i)
		y, yok := keyByte(b, i)
		switch {
		case !xok && !yok:
			return 0
		case !xok:
			return -1
		case !yok:
			return 1
		case x != y:
			if x < y {
				return -1
			}
			return 1
		}
	}
}
