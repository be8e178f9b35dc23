package recording

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
)

// prune drops what retention no longer keeps, and the oldest part beyond
// MaxSize, now and every pruneEvery.
func (r *Recording) prune(ctx context.Context) {
	rc := r.cfg
	t := time.NewTicker(pruneEvery)
	defer t.Stop()
	over := false // said that the state kept is over MaxSize
	first := true
	r.moved(ctx)
	for {
		err := r.store.Prune(ctx, time.Now().Add(-rc.Retention), history.Cause{Retention: rc.Retention})
		if sh, ok := r.store.(shrinker); ok && err == nil && rc.MaxSize > 0 {
			var used int64
			used, err = sh.Shrink(ctx, rc.MaxSize)
			if err == nil && used > rc.MaxSize != over {
				over = !over
				if over {
					r.say("warning: history: what it keeps of the latest state takes %s, more than --record-max-size %s\n", quantity(used), quantity(rc.MaxSize))
				}
			}
		}
		if err == nil {
			r.moved(ctx)
		}
		if err == nil && !first { // at start, the reflectors read the history: no more reading beside them
			err = r.checkpoint(ctx)
		}
		first = false
		r.warn(ctx, err)
		if !r.awaitPrune(ctx, t) {
			return
		}
	}
}

// awaitPrune waits for the next prune, checkpointing meanwhile whenever
// one is due; false when ctx ended.
func (r *Recording) awaitPrune(ctx context.Context, t *time.Ticker) bool {
	for {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
			return true
		case <-r.due.wake:
			r.warn(ctx, r.checkpoint(ctx))
		}
	}
}

// warn says a failure of the pruner's, unless the daemon stops.
func (r *Recording) warn(ctx context.Context, err error) {
	if err != nil && ctx.Err() == nil {
		r.say("warning: history: %v\n", err)
	}
}

// say writes one line to the daemon's ErrOut.
func (r *Recording) say(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(r.errOut, format, args...)
}

// quantity is a size in bytes as --record-max-size takes it (512Mi).
func quantity(n int64) string { return resource.NewQuantity(n, resource.BinarySI).String() }

// checkpoint keeps each resource's state where its record ends in one
// piece, for the next start (a warm restart reads it) and get --at.
func (r *Recording) checkpoint(ctx context.Context) error {
	r.mu.Lock()
	resources := slices.Clone(r.resources)
	r.mu.Unlock()
	for _, res := range resources {
		if err := r.store.Checkpoint(ctx, res); err != nil && !errors.Is(err, history.ErrNotRecorded) {
			return err
		}
	}
	r.due.checkpointed()
	return nil
}
