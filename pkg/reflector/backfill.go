package reflector

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// backfillTimeout is the timeoutSeconds of a backfill's watch: the server
// sends the changes it holds after the resourceVersion at once, and a
// bookmark two seconds before the timeout, which tells that it has sent
// everything up to the store's.
const backfillTimeout = 4

// maxBackfill bounds the events a backfill reads; the store refuses more
// than its window has room for anyway.
const maxBackfill = 1 << 16

// Backfill makes the store's window reach back to resourceVersion from,
// when the server still holds the changes after it (its watch cache's
// window): it watches the server from `from`, through the reflector's own
// client (the same scope and shape as its list), until the store's oldest
// resourceVersion, and hands what came to store.Store.Backfill. A
// consumer that must answer a resume or an exact read from before the
// store's first list calls it, then asks the store again. It returns nil
// when the window already reaches from; the server's error (410 Gone:
// it no longer holds them either) as an *apierrors.StatusError; or
// store.ErrTooOld when the changes do not fit. Backfills of one reflector
// run one at a time.
func (r *Reflector) Backfill(ctx context.Context, from string) error {
	r.backfillMu.Lock()
	defer r.backfillMu.Unlock()
	start, ok := store.ParseRV(from)
	if !ok {
		return fmt.Errorf("%w: %q", store.ErrInvalidResourceVersion, from)
	}
	oldest := r.store.OldestResourceVersion()
	base, ok := store.ParseRV(oldest)
	if !ok {
		return &store.TooOldError{RV: from}
	}
	if start >= base {
		return nil
	}
	events, err := r.readSince(ctx, from, base)
	if err != nil {
		return err
	}
	return r.store.Backfill(from, oldest, events)
}

// readSince reads the server's watch from `from` until it is past base.
func (r *Reflector) readSince(ctx context.Context, from string, base uint64) ([]watch.WatchEvent[*object.Object], error) {
	ctx, cancel := context.WithTimeout(ctx, 2*backfillTimeout*time.Second)
	defer cancel()
	stream, err := r.client.Watch(ctx, watch.WatchRequest{ResourceVersion: from, AllowWatchBookmarks: true, TimeoutSeconds: backfillTimeout})
	if err != nil {
		return nil, fmt.Errorf("reading %s's changes after resourceVersion %s: %w", r.Resource(), from, err)
	}
	defer stream.Close()
	var events []watch.WatchEvent[*object.Object]
	reached := false // an event at base came: every change up to it did
	for len(events) < maxBackfill {
		ev, err := stream.Next()
		if errors.Is(err, io.EOF) && reached {
			return events, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s's changes after resourceVersion %s: %w", r.Resource(), from, err)
		}
		if ev.Type == watch.WatchError {
			return nil, ev.Err // the server's status: 410 when it holds them no more
		}
		rv, _ := store.ParseRV(ev.ResourceVersion)
		if rv > base || rv == base && ev.Type == watch.WatchBookmark {
			return events, nil // past the store's oldest: every change up to it came
		}
		if ev.Type != watch.WatchBookmark {
			events = append(events, ev)
			reached = rv == base
		}
	}
	return nil, fmt.Errorf("%w: the server's changes after resourceVersion %s did not reach %d", store.ErrTooOld, from, base)
}
