package history

import (
	"context"
	"errors"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// A recording knows its record current (alive) when it has taken every
// change its store applied; it says so with each batch, and every
// heartbeat while no change comes, so that what follows a crash (a gap,
// a catch-up) starts where recording really stopped.

// next waits for sub's next change. Each heartbeat none comes, it writes
// that the record is current (beat).
func (rs *recordRun) next(ctx context.Context, sub *store.Subscription[*object.Object]) (store.Change[*object.Object], error) {
	for {
		wait, cancel := context.WithTimeout(ctx, rs.r.opts.Heartbeat)
		c, err := sub.Next(wait)
		cancel()
		if err == nil || ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded) {
			return c, err
		}
		// The store's resourceVersion first: every change it applied by
		// then is queued, so an empty queue means the record has them.
		rv := parseRV(rs.src.ResourceVersion())
		if c, ok, err := sub.TryNext(); ok || err != nil {
			return c, err
		}
		if err := rs.beat(ctx, rv); err != nil {
			return store.Change[*object.Object]{}, err
		}
	}
}

// beat writes that the record is current now. The store's
// resourceVersion (rv) past the last change taken came with a bookmark:
// the server has sent every change before it, so a catch-up is over. It
// is not where the record is complete to (Batch.RV): a client resumes a
// watch from there, and a bookmark's resourceVersion is known to this
// store only (a daemon's narrower store of the same kind may not have
// reached it).
func (rs *recordRun) beat(ctx context.Context, rv uint64) error {
	if rs.known == nil || rs.sync != nil {
		return nil // nothing synced yet
	}
	if rv > rs.last {
		rs.late = nil
	}
	rs.alive()
	return rs.flush(ctx)
}

// alive notes in the batch that the record is current now, when it is:
// every change the store applied is taken (the caller found its queue
// empty), its state synced, and no catch-up pending (whose changes the
// server may not have sent yet).
func (rs *recordRun) alive() {
	if rs.known != nil && rs.sync == nil && rs.late == nil {
		rs.batch.Alive = time.Now()
	}
}
