package history

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// add appends a revision of obj (nil for a deletion found by a list:
// the store writes its last recorded state); old is the version before
// it when known, which tells who made the change (Manager). An Initial
// revision claims no manager: no change of it was seen.
func (rs *recordRun) add(k store.Key, rv uint64, op Op, obj, old *object.Object, at time.Time) {
	if at.IsZero() {
		at = time.Now()
	}
	rev := Revision{Namespace: k.Namespace, Name: k.Name, RV: rv, Time: at, Op: op}
	if obj != nil {
		rev.Object = rs.unpack(obj)
		var prev []byte
		if old != nil {
			prev = rs.unpack(old)
		}
		if op != Initial {
			// Before a Secret's values are hashed: the fields that changed
			// may decide, read alike in both versions.
			rev.Manager = Manager(rev.Object, prev)
		}
		rs.dateLate(&rev, prev)
		if rs.secrets {
			rev.Object = HashSecretData(rev.Object)
			if prev != nil {
				prev = HashSecretData(prev)
			}
		}
		rev.Cells = obj.Cells
		rev.Before = prev // the revision before, as recorded when the store says so
	}
	rs.batch.Revisions = append(rs.batch.Revisions, rev)
}

// unpack appends obj's JSON to buf and returns it.
func (rs *recordRun) unpack(obj *object.Object) []byte {
	start := len(rs.buf)
	rs.buf = obj.AppendJSON(rs.buf)
	return rs.buf[start:len(rs.buf):len(rs.buf)]
}

// maxKeptBuf and maxKeptRevisions bound what a recording keeps between
// batches: a batch of large objects (a resync of CRDs) or of a whole
// state's deletions leaves no such buffer behind.
const (
	maxKeptBuf       = 16 << 20
	maxKeptRevisions = 4 * maxBatch
)

// written empties the batch once it is written, keeping its memory.
func (rs *recordRun) written() {
	clear(rs.batch.Revisions)
	rs.batch = Batch{Revisions: rs.batch.Revisions[:0]}
	rs.buf = rs.buf[:0]
	if cap(rs.buf) > maxKeptBuf {
		rs.buf = nil
	}
	if cap(rs.batch.Revisions) > maxKeptRevisions {
		rs.batch.Revisions = nil
	}
}

// advance moves the resourceVersion the batch completes the record to
// (Batch.RV) to a live change's: every change up to it is then in the
// batch or written. The changes of a whole state and of a relist do not
// move it (synced does, at a state's end): until the last of them is
// written, the record is complete only up to where it was, and a daemon
// restarted from it resumes from there (a partial relist read as the state
// at its resourceVersion would miss what its later changes say).
func (rs *recordRun) advance(c store.Change[*object.Object]) {
	if c.Relist == "" {
		rs.batch.RV = max(rs.batch.RV, parseRV(c.ResourceVersion))
	}
}

// flush writes the batch.
func (rs *recordRun) flush(ctx context.Context) error {
	if len(rs.batch.Revisions) == 0 && rs.batch.RV == 0 && rs.batch.Alive.IsZero() {
		return nil
	}
	if cols := rs.src.Columns(); cols != nil {
		if b, err := json.Marshal(cols); err == nil && string(b) != rs.columns {
			rs.batch.Columns, rs.columns = b, string(b)
		}
	}
	err := rs.retry(ctx, func() error { return rs.r.store.Write(ctx, rs.res, rs.batch) })
	if err == nil {
		rs.r.opts.OnWrite(rs.res, rs.batch.RV, len(rs.batch.Revisions))
		rs.written()
	}
	return err
}

// retry runs f until it succeeds or ctx ends, telling OnError of each
// failure and of the success after one, backing off from 1 s to 30 s.
func (rs *recordRun) retry(ctx context.Context, f func() error) error {
	delay := time.Second
	failed := false
	for {
		err := f()
		if err == nil {
			if failed {
				rs.r.opts.OnError(rs.res, nil)
			}
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		failed = true
		rs.r.opts.OnError(rs.res, err)
		if err := sleep(ctx, delay); err != nil {
			return err
		}
		delay = min(2*delay, 30*time.Second)
	}
}

// finish writes what is queued when the recorder stops, and that the
// record is complete to the store's resourceVersion, so that a restart
// marks a gap only from there.
func (rs *recordRun) finish(sub *store.Subscription[*object.Object]) error {
	if rs.known == nil || rs.sync != nil {
		return nil // nothing synced to finish
	}
	rv := parseRV(rs.src.ResourceVersion())
	for {
		c, ok, err := sub.TryNext()
		if err != nil || !ok {
			break
		}
		if c.Type == store.Resync || rs.take(context.Background(), c) != nil {
			return nil // the state is not whole: leave the record as it was
		}
	}
	if rs.sync != nil {
		return nil
	}
	rs.batch.RV = max(rs.batch.RV, rv)
	rs.alive()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := rs.r.store.Write(ctx, rs.res, rs.batch); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		rs.r.opts.OnError(rs.res, err)
	}
	return nil
}
