package watch

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/clock"
)

// Handler receives the events of a Watcher, one at a time, in order. An error
// from it ends Run and is returned as it is.
type Handler[T any] func(ctx context.Context, ev Event[T]) error

// Options tune a Watcher. The zero value is usable.
type Options struct {
	// List is how the watcher lists (default ListStreaming).
	List ListMode
	// PageSize is the LIST page size of ListPaged (default 500).
	PageSize int64
	// MinWatchTimeout is the shortest timeoutSeconds asked of a watch; each
	// watch asks for a random timeout between it and twice it (default 5m),
	// so that many clients do not reconnect at once.
	MinWatchTimeout time.Duration
	// Backoff between failed attempts (default DefaultBackoff). It starts
	// over once an attempt makes progress.
	Backoff *wait.Backoff
	// Retry says which errors Run retries and for how long (the zero value:
	// transient errors forever, 404 never; see RetryPolicy).
	Retry RetryPolicy
	// RequestTimeout bounds each request the watcher makes (0: no bound): a
	// List call, its body included, and the opening of a watch, until the
	// Client returns its Stream. It does not bound the stream that follows,
	// which lasts until the server's timeoutSeconds: a request timeout that
	// cut every watch would turn a quiet watch into a string of errors.
	// kubectl's --request-timeout belongs here, not in the http.Client.
	RequestTimeout time.Duration
	// OnError is told about every error that the watcher retries, with the
	// delay before the retry. Terminal errors are returned by Run instead.
	OnError func(err error, retryIn time.Duration)
	// OnRelist is told when the server answered 410 Gone (the
	// resourceVersion is too old) and the watcher starts a new list.
	OnRelist func(err error)
	// OnWatchRestart is told when a watch is open again after the previous
	// one ended (the server's timeout, a dropped connection, an error other
	// than 410 Gone): a resume from the last resourceVersion, not a relist.
	// The first watch after a list is no restart.
	OnWatchRestart func()
	// SilenceTimeout ends an open watch taken as dead (default
	// DefaultSilenceTimeout; negative: never): one that brought nothing,
	// not even a bookmark, for this long while the watcher waited, after a
	// bookmark came on it (a server whose bookmarks flow sends one about
	// every minute), or one that the server did not end at its
	// timeoutSeconds (and a tenth). It is taken as the server's end of the
	// watch: the watch resumes at once from the last resourceVersion, on a
	// new connection, and no error is reported (OnWatchRestart is told),
	// since a silence may be a server with nothing to say. It is how a
	// watch over HTTP/1.1, which has no HTTP/2 PING, finds a connection
	// that stays open and carries nothing (a proxy that stopped
	// forwarding), which TCP keepalive does not see.
	SilenceTimeout time.Duration
	// Clock is for tests (default: the real clock).
	Clock clock.WithTicker
}

// ListMode is how a watcher lists.
type ListMode uint8

const (
	// ListStreaming asks for a streaming list (sendInitialEvents, ended by
	// the k8s.io/initial-events-end bookmark) and falls back to ListPaged
	// when the server refuses one. The server builds no list: it encodes
	// each object as a watch event.
	ListStreaming ListMode = iota
	// ListPaged pages through LIST, PageSize objects per request.
	ListPaged
	// ListWhole lists in one LIST request, which an API server with
	// consistent reads from its watch cache (1.31 on) answers from the
	// cache, encoding the items as one stream. Over JSON it is the fastest
	// of the three (make bench times each), and a client that decodes items
	// as they arrive (pkg/kube does) holds no copy of the response.
	ListWhole
)

// Watcher lists and watches one resource through a Client.
type Watcher[T any] struct {
	client Client[T]
	opts   Options
	seed   Seeder[T] // see WithSeed
}

// New returns a Watcher reading from client.
func New[T any](client Client[T], opts Options) *Watcher[T] {
	if opts.PageSize <= 0 {
		opts.PageSize = 500
	}
	if opts.MinWatchTimeout <= 0 {
		opts.MinWatchTimeout = 5 * time.Minute
	}
	if opts.Backoff == nil {
		b := DefaultBackoff
		opts.Backoff = &b
	}
	if opts.SilenceTimeout == 0 {
		opts.SilenceTimeout = DefaultSilenceTimeout
	}
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	if opts.OnError == nil {
		opts.OnError = func(error, time.Duration) {}
	}
	if opts.OnRelist == nil {
		opts.OnRelist = func(error) {}
	}
	if opts.OnWatchRestart == nil {
		opts.OnWatchRestart = func() {}
	}
	return &Watcher[T]{client: client, opts: opts}
}

// Run lists and watches until ctx ends (then it returns nil), the handler
// fails (its error) or an attempt fails in a way Options.Retry does not
// retry (a *TerminalError). Every other error is reported to Options.OnError
// and retried after a backoff.
func (w *Watcher[T]) Run(ctx context.Context, handle Handler[T]) error {
	m := &machine[T]{w: w, emit: handle, streaming: w.opts.List == ListStreaming}
	defer m.closeStream()
	b := newBackoff(*w.opts.Backoff)
	failures, prev := 0, error(nil) // the failed attempts since the last progress
	for ctx.Err() == nil {
		progressed, err := m.step(ctx)
		if progressed {
			b.reset()
			failures, prev = 0, nil
		}
		if err == nil {
			continue
		}
		if ctx.Err() != nil {
			return nil
		}
		var he handlerError
		if errors.As(err, &he) {
			return he.err
		}
		if failures++; !w.opts.Retry.retries(err, failures, prev) {
			return &TerminalError{Err: err}
		}
		prev = err
		delay := b.next(err)
		w.opts.OnError(err, delay)
		if !w.sleep(ctx, delay) {
			return nil
		}
	}
	return nil
}

func (w *Watcher[T]) sleep(ctx context.Context, d time.Duration) bool {
	t := w.opts.Clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C():
		return true
	}
}

// watchTimeout is a random timeout in [MinWatchTimeout, 2*MinWatchTimeout).
func (w *Watcher[T]) watchTimeout() int64 {
	min := w.opts.MinWatchTimeout.Seconds()
	return max(1, int64(min*(1+rand.Float64())))
}
