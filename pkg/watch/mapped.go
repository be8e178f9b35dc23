package watch

import "context"

// Map is c with every object it returns converted by fn, so that a Watcher
// of it yields Event[U]: typed objects such as *corev1.Pod from a Client of
// *object.Object (pkg/kube's), fn decoding each one. The adapter costs a
// call of fn per object and nothing else (BenchmarkMap); what fn does is the
// cost. An error of fn fails the List or the Next that read the object, as
// an error reading the server's answer does: the watcher retries it.
func Map[T, U any](c Client[T], fn func(T) (U, error)) Client[U] {
	return mapped[T, U]{c: c, fn: fn}
}

type mapped[T, U any] struct {
	c  Client[T]
	fn func(T) (U, error)
}

func (m mapped[T, U]) List(ctx context.Context, req ListRequest) (Page[U], error) {
	p, err := m.c.List(ctx, req)
	if err != nil {
		return Page[U]{}, err
	}
	out := Page[U]{Items: make([]U, len(p.Items)), ResourceVersion: p.ResourceVersion, Continue: p.Continue}
	for i, item := range p.Items {
		if out.Items[i], err = m.fn(item); err != nil {
			return Page[U]{}, err
		}
	}
	return out, nil
}

func (m mapped[T, U]) Watch(ctx context.Context, req WatchRequest) (Stream[U], error) {
	s, err := m.c.Watch(ctx, req)
	if err != nil {
		return nil, err
	}
	return mappedStream[T, U]{s: s, fn: m.fn}, nil
}

type mappedStream[T, U any] struct {
	s  Stream[T]
	fn func(T) (U, error)
}

func (m mappedStream[T, U]) Next() (WatchEvent[U], error) {
	ev, err := m.s.Next()
	out := WatchEvent[U]{Type: ev.Type, ResourceVersion: ev.ResourceVersion, InitialEventsEnd: ev.InitialEventsEnd, Err: ev.Err}
	if err != nil {
		return out, err
	}
	switch ev.Type {
	case WatchAdded, WatchModified, WatchDeleted:
		out.Object, err = m.fn(ev.Object)
	}
	return out, err
}

func (m mappedStream[T, U]) Close() { m.s.Close() }
