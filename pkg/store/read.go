package store

import (
	"context"
	"fmt"
	"slices"
)

// The readers' side of a Store: any goroutine, any number of them.

// Get returns the object stored under k.
func (s *Store[T]) Get(k Key) (T, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	obj, ok := s.items[k]
	return obj, ok
}

// List returns a snapshot of the objects for which keep returns true (all
// when keep is nil), in the API server's order (see CompareKeys), or the
// latest list's (Options.ListOrder).
func (s *Store[T]) List(keep func(T) bool) []T {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.listLocked(keep)
}

func (s *Store[T]) listLocked(keep func(T) bool) []T {
	out := make([]T, 0, len(s.items))
	if s.listed != nil {
		return s.inListOrderLocked(out, keep)
	}
	for _, obj := range s.items {
		if keep == nil || keep(obj) {
			out = append(out, obj)
		}
	}
	slices.SortFunc(out, func(a, b T) int { return CompareKeys(KeyOf(a), KeyOf(b)) })
	return out
}

// inListOrderLocked appends the objects keep keeps to out in the order of
// the latest list (Options.ListOrder), then those added since in key
// order. Nothing is sorted unless objects were added since.
func (s *Store[T]) inListOrderLocked(out []T, keep func(T) bool) []T {
	found := 0
	for _, k := range s.listed {
		obj, ok := s.items[k]
		if !ok {
			continue // deleted since
		}
		found++
		if keep == nil || keep(obj) {
			out = append(out, obj)
		}
	}
	if found == len(s.items) {
		return out
	}
	listed := make(map[Key]bool, len(s.listed))
	for _, k := range s.listed {
		listed[k] = true
	}
	n := len(out)
	for k, obj := range s.items {
		if !listed[k] && (keep == nil || keep(obj)) {
			out = append(out, obj)
		}
	}
	slices.SortFunc(out[n:], func(a, b T) int { return CompareKeys(KeyOf(a), KeyOf(b)) })
	return out
}

// Snapshot returns the objects for which keep returns true (all when keep
// is nil), in List's order, and the resourceVersion they are current to,
// both read at the same instant: a consumer that lists then watches from rv
// misses nothing and sees nothing twice.
func (s *Store[T]) Snapshot(keep func(T) bool) (items []T, rv string) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.listLocked(keep), s.rv
}

// ByIndex returns a snapshot of the objects under value in the named index
// (NamespaceIndex or one of Options.Indexes) for which keep returns true
// (all when keep is nil), in the API server's order (see CompareKeys).
func (s *Store[T]) ByIndex(name, value string, keep func(T) bool) ([]T, error) {
	if name == NamespaceIndex {
		s.addNamespaceIndex()
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	keys, ok := s.indexes.keys(name, value)
	if !ok {
		return nil, fmt.Errorf("store: no index %q", name)
	}
	out := make([]T, 0, len(keys))
	for _, k := range keys {
		if obj := s.items[k]; keep == nil || keep(obj) {
			out = append(out, obj)
		}
	}
	return out, nil
}

// addNamespaceIndex builds the namespace index unless it exists. Stores
// that are never asked by namespace (one namespace watched, a listing
// printed whole) never pay its memory.
func (s *Store[T]) addNamespaceIndex() {
	s.mu.RLock()
	has := s.indexes.has(NamespaceIndex)
	s.mu.RUnlock()
	if has {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.indexes.has(NamespaceIndex) {
		s.indexes = s.indexes.with(NamespaceIndex, func(o T) []string { return []string{o.GetNamespace()} }, s.items)
	}
}

// Len is the number of objects stored.
func (s *Store[T]) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.items)
}

// ResourceVersion is the resourceVersion the state is current to.
func (s *Store[T]) ResourceVersion() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.rv
}

// Synced is closed once the first list has been swapped in.
func (s *Store[T]) Synced() <-chan struct{} { return s.synced }

// WaitForSync blocks until the first list has been swapped in or ctx ends.
func (s *Store[T]) WaitForSync(ctx context.Context) error {
	select {
	case <-s.synced:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for the first list: %w", ctx.Err())
	}
}
