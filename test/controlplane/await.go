package controlplane

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
)

// awaitState lists and watches objects of objType's type through lw until
// done, given every object there is now, returns true (or an error). It is
// level-based: done judges the whole state after each event, never the
// event, so a state that several events build, or that an event undoes, is
// judged right; and the watch resumes where it was if the server closes it.
func awaitState[T runtime.Object](ctx context.Context, lw cache.ListerWatcher, objType T, done func([]T) (bool, error)) error {
	var store cache.Store
	judge := func() (bool, error) {
		items := store.List()
		objs := make([]T, 0, len(items))
		for _, it := range items {
			obj, ok := it.(T)
			if !ok {
				return false, fmt.Errorf("await: unexpected %T in the store", it)
			}
			objs = append(objs, obj)
		}
		return done(objs)
	}
	_, err := watchtools.UntilWithSync(ctx, lw, objType, func(s cache.Store) (bool, error) {
		store = s
		return judge()
	}, func(watch.Event) (bool, error) {
		return judge()
	})
	return err
}

// everything selects every object.
func everything() fields.Selector { return fields.Everything() }

// whileRunning returns a context that ends when ctx does, after timeout,
// or when one of procs exits, whichever comes first; context.Cause tells
// which (see reasonFor).
func whileRunning(ctx context.Context, timeout time.Duration, procs ...*process) (context.Context, context.CancelFunc) {
	ctx, cancelTimeout := context.WithTimeoutCause(ctx, timeout, fmt.Errorf("not within %s", timeout))
	ctx, cancel := context.WithCancelCause(ctx)
	for _, p := range procs {
		go func() {
			select {
			case <-p.done:
				cancel(p.exitError())
			case <-ctx.Done():
			}
		}()
	}
	return ctx, func() { cancel(nil); cancelTimeout() }
}

// reasonFor is err, with why ctx ended if it did: a component exited (with
// the tail of its log) or time ran out.
func reasonFor(ctx context.Context, err error) error {
	if ctx.Err() == nil {
		return err
	}
	return fmt.Errorf("%w (%v)", context.Cause(ctx), err)
}
