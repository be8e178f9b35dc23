package store

import "slices"

// IndexFunc maps an object to the values it is found under in an index
// (an owner's UID, a node name, ...). It must be a pure function of the
// object.
type IndexFunc[T Object] func(T) []string

// NamespaceIndex is the index of objects by namespace that every store
// answers; it is built on its first use.
const NamespaceIndex = "namespace"

// indexes maps index name -> value -> keys. Only the writer changes it, under
// the store's write lock.
type indexes[T Object] struct {
	funcs map[string]IndexFunc[T]
	byVal map[string]map[string]map[Key]struct{}
}

func newIndexes[T Object](funcs map[string]IndexFunc[T]) *indexes[T] {
	all := map[string]IndexFunc[T]{}
	for name, fn := range funcs {
		all[name] = fn
	}
	ix := &indexes[T]{funcs: all, byVal: map[string]map[string]map[Key]struct{}{}}
	for name := range all {
		ix.byVal[name] = map[string]map[Key]struct{}{}
	}
	return ix
}

func (ix *indexes[T]) has(name string) bool {
	_, ok := ix.funcs[name]
	return ok
}

// with returns indexes that also keep the index fn of items, leaving ix as
// it is (the writer may be rebuilding from it).
func (ix *indexes[T]) with(name string, fn IndexFunc[T], items map[Key]T) *indexes[T] {
	out := newIndexes(map[string]IndexFunc[T]{name: fn}).rebuilt(items)
	for n, f := range ix.funcs {
		out.funcs[n], out.byVal[n] = f, ix.byVal[n]
	}
	return out
}

// rebuilt returns indexes of the same functions over items.
func (ix *indexes[T]) rebuilt(items map[Key]T) *indexes[T] {
	out := &indexes[T]{funcs: ix.funcs, byVal: map[string]map[string]map[Key]struct{}{}}
	for name := range ix.funcs {
		out.byVal[name] = map[string]map[Key]struct{}{}
	}
	for k, obj := range items {
		out.add(k, obj)
	}
	return out
}

func (ix *indexes[T]) add(k Key, obj T) {
	for name, fn := range ix.funcs {
		for _, v := range fn(obj) {
			keys := ix.byVal[name][v]
			if keys == nil {
				keys = map[Key]struct{}{}
				ix.byVal[name][v] = keys
			}
			keys[k] = struct{}{}
		}
	}
}

func (ix *indexes[T]) remove(k Key, obj T) {
	for name, fn := range ix.funcs {
		for _, v := range fn(obj) {
			if keys := ix.byVal[name][v]; keys != nil {
				delete(keys, k)
				if len(keys) == 0 {
					delete(ix.byVal[name], v)
				}
			}
		}
	}
}

// keys are the keys under value in index name, sorted; ok is false for an
// unknown index.
func (ix *indexes[T]) keys(name, value string) ([]Key, bool) {
	byVal, ok := ix.byVal[name]
	if !ok {
		return nil, false
	}
	keys := make([]Key, 0, len(byVal[value]))
	for k := range byVal[value] {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, CompareKeys)
	return keys, true
}
