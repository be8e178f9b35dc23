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
