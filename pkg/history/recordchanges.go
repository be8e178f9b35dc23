package history

import (
	"context"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// take adds c to the batch.
func (rs *recordRun) take(ctx context.Context, c store.Change[*object.Object]) error {
	rs.last = max(rs.last, parseRV(c.ResourceVersion))
	switch c.Type {
	case store.Resync:
		if err := rs.flush(ctx); err != nil {
			return err
		}
		rs.sync = &syncing{}
	case store.Applied:
		if rs.known == nil && rs.sync == nil {
			rs.sync = &syncing{} // the first sync: the state starts the stream
		}
		if rs.sync != nil {
			return rs.stateApplied(ctx, c)
		}
		if err := rs.relisted(ctx, c.Relist); err != nil {
			return err
		}
		rs.applied(c)
		rs.advance(c)
	case store.Deleted:
		if err := rs.relisted(ctx, c.Relist); err != nil {
			return err
		}
		rv := parseRV(c.ResourceVersion)
		if c.Relist != "" {
			rv = parseRV(c.Relist) // gone by then; when, the relist cannot tell
		}
		key := Key(c.Key.Namespace, c.Key.Name)
		if _, ok := rs.known[key]; ok {
			delete(rs.known, key)
			rs.renewals.forget(key)
			rs.add(c.Key, rv, Deleted, c.Object, nil, c.At)
		}
		rs.advance(c)
	case store.Synced:
		if rs.known == nil && rs.sync == nil {
			rs.sync = &syncing{} // the first sync, of no object
		}
		return rs.synced(ctx, parseRV(c.ResourceVersion))
	}
	return nil
}

// applied records a live change.
func (rs *recordRun) applied(c store.Change[*object.Object]) {
	key := Key(c.Key.Namespace, c.Key.Name)
	rv := parseRV(c.Object.ResourceVersion)
	prev, ok := rs.known[key]
	if ok && prev == rv {
		return // recorded already
	}
	op := Modified
	switch {
	case !ok && c.Relist != "":
		op = Initial // the relist found it: its creation was not seen
	case !ok:
		op = Added
	}
	var old *object.Object
	if c.HasOld {
		old = c.Old
	}
	if rs.renewals.skip(key, c.Object, old, c.At) {
		return // a renewal alone, within the interval of the last kept
	}
	rs.known[key] = rv
	rs.add(c.Key, rv, op, c.Object, old, c.At)
}

// stateApplied records an object of a whole state where it differs from
// the record. The first one reads the record (Record.Begin) at the state's
// resourceVersion: the stretch before it is a gap when the record ends
// earlier (nothing recorded, or the recorder fell behind).
func (rs *recordRun) stateApplied(ctx context.Context, c store.Change[*object.Object]) error {
	if err := rs.begin(ctx, parseRV(c.ResourceVersion)); err != nil {
		return err
	}
	key := Key(c.Key.Namespace, c.Key.Name)
	rv := parseRV(c.Object.ResourceVersion)
	rs.sync.known[key] = rv
	prev, ok := rs.sync.present[key]
	delete(rs.sync.present, key)
	if ok && prev == rv {
		return nil
	}
	op := Modified
	if !ok {
		op = Initial // there before the state was taken: its creation was not seen
	}
	rs.add(c.Key, rv, op, c.Object, nil, c.At)
	return nil
}

// relisted marks, at the first change a relist found (relist is its
// resourceVersion; "" for a watch event), the stretch the relist covers
// as a gap: the store relisted (its watch fell too far behind, or the
// server no longer held the resourceVersion a restarted daemon resumed
// from), so what happened between is known only by its outcome.
func (rs *recordRun) relisted(ctx context.Context, relist string) error {
	if relist == "" || relist == rs.relist {
		return nil
	}
	if err := rs.flush(ctx); err != nil {
		return err
	}
	rs.relist = relist
	rs.late = nil // the relist's state is exact; what it did not see is a gap
	return rs.retry(ctx, func() error {
		_, err := rs.r.store.Begin(ctx, rs.res, parseRV(relist))
		return err
	})
}

// begin reads the record when a state starts, retried as a write is.
func (rs *recordRun) begin(ctx context.Context, rv uint64) error {
	if rs.sync.begun {
		return nil
	}
	var start Start
	err := rs.retry(ctx, func() error {
		var err error
		start, err = rs.r.store.Begin(ctx, rs.res, rv)
		return err
	})
	if err != nil {
		return err
	}
	if rs.known == nil {
		rs.start = start
	}
	rs.sync.begun, rs.sync.present, rs.sync.known = true, start.Present, map[string]uint64{}
	return nil
}

// synced ends a whole state at rv: what the record held and the state
// lacks was deleted meanwhile, recorded at rv.
func (rs *recordRun) synced(ctx context.Context, rv uint64) error {
	if rs.sync == nil {
		return nil // a late join's marker: nothing pending
	}
	if err := rs.begin(ctx, rv); err != nil {
		return err
	}
	now := time.Now()
	for key := range rs.sync.present {
		ns, name := splitKey(key)
		rs.batch.Revisions = append(rs.batch.Revisions, Revision{Namespace: ns, Name: name, RV: rv, Time: now, Op: Deleted})
	}
	first := rs.known == nil
	rs.known, rs.sync = rs.sync.known, nil
	rs.batch.RV = max(rs.batch.RV, rv)
	if first && rs.start.Latest != 0 && rs.start.Latest >= rv {
		// Started from the record, no gap: the watch resumed where the
		// record ends brings what happened meanwhile, late.
		since := rs.start.Alive
		if since.IsZero() {
			since = time.UnixMilli(0).UTC() // known current at no time: any time before now
		}
		rs.late = newLateness(since, now)
	}
	return nil
}
