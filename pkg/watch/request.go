package watch

import (
	"context"
	"fmt"
	"time"
)

// list makes one List call, bounded by Options.RequestTimeout.
func (m *machine[T]) list(ctx context.Context, opts ListRequest) (Page[T], error) {
	if d := m.w.opts.RequestTimeout; d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	return m.w.client.List(ctx, opts)
}

// watch opens a watch. Options.RequestTimeout bounds the opening only: the
// stream it returns lives until it is closed or ctx ends.
func (m *machine[T]) watch(ctx context.Context, opts WatchRequest) (Stream[T], error) {
	d := m.w.opts.RequestTimeout
	if d <= 0 {
		return m.w.client.Watch(ctx, opts)
	}
	ctx, cancel := context.WithCancel(ctx)
	timer := time.AfterFunc(d, cancel)
	s, err := m.w.client.Watch(ctx, opts)
	if timer.Stop() { // answered in time
		if err != nil {
			cancel()
			return nil, err
		}
		return &cancelOnClose[T]{Stream: s, cancel: cancel}, nil
	}
	// The timer fired: the request was cut, or its answer came too late.
	if s != nil {
		s.Close()
	}
	if err == nil {
		err = context.DeadlineExceeded
	}
	return nil, timedOut{err: err, after: d}
}

// timedOut is a watch request that had no answer within
// Options.RequestTimeout. Its context was canceled, so err says "context
// canceled"; timedOut is also context.DeadlineExceeded.
type timedOut struct {
	err   error
	after time.Duration
}

func (e timedOut) Error() string        { return fmt.Sprintf("%v (no answer within %v)", e.err, e.after) }
func (e timedOut) Unwrap() error        { return e.err }
func (e timedOut) Is(target error) bool { return target == context.DeadlineExceeded }

// cancelOnClose is a Stream whose Close also ends the context it reads on.
type cancelOnClose[T any] struct {
	Stream[T]
	cancel context.CancelFunc
}

func (s *cancelOnClose[T]) Close() {
	s.Stream.Close()
	s.cancel()
}
