package watch

import "context"

// Applied adapts a handler of objects to the objects a watcher applies
// (InitApply and Apply), the way kube-runtime's applied_objects does.
func Applied[T any](fn func(ctx context.Context, obj T) error) Handler[T] {
	return func(ctx context.Context, ev Event[T]) error {
		if ev.Type == InitApply || ev.Type == Apply {
			return fn(ctx, ev.Object)
		}
		return nil
	}
}

// Deleted adapts a handler of objects to the deletions a watcher sees.
// Deletions missed while the watcher was away are not among them: a consumer
// that needs those keeps state (pkg/store does).
func Deleted[T any](fn func(ctx context.Context, obj T) error) Handler[T] {
	return func(ctx context.Context, ev Event[T]) error {
		if ev.Type == Delete {
			return fn(ctx, ev.Object)
		}
		return nil
	}
}

// Touched adapts a handler of objects to every object a watcher carries:
// applied and deleted alike.
func Touched[T any](fn func(ctx context.Context, obj T) error) Handler[T] {
	return func(ctx context.Context, ev Event[T]) error {
		switch ev.Type {
		case InitApply, Apply, Delete:
			return fn(ctx, ev.Object)
		}
		return nil
	}
}
