package store

import (
	"cmp"
	"strconv"
)

// ResourceVersions are opaque to clients, but every kube-apiserver's is
// etcd's revision, a number that grows with every write; the store's
// window, a resume from a resourceVersion and pkg/serve's answers compare
// them as such, here and nowhere else.

// ParseRV reads a resourceVersion as its number; ok is false when it is
// not one.
func ParseRV(rv string) (n uint64, ok bool) {
	n, err := strconv.ParseUint(rv, 10, 64)
	return n, err == nil
}

// CompareRV orders resourceVersions as numbers; one that is not a number
// sorts after those that are, as equal to any other.
func CompareRV(a, b string) int {
	an, aok := ParseRV(a)
	bn, bok := ParseRV(b)
	switch {
	case aok && bok:
		return cmp.Compare(an, bn)
	case aok:
		return -1
	case bok:
		return 1
	}
	return 0
}

// MaxRV is the later of two resourceVersions: of a number and not one,
// the number; of two that are not, b.
func MaxRV(a, b string) string {
	an, aok := ParseRV(a)
	bn, bok := ParseRV(b)
	if !aok || (bok && bn > an) {
		return b
	}
	return a
}
