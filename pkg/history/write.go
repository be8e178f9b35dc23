package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/bits"
	"strings"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history/internal/codec"
)

// Begin implements Record.
func (s *sqlStore) Begin(ctx context.Context, res string, rv uint64) (Start, error) {
	start := Start{Present: map[string]uint64{}}
	err := s.inTx(ctx, false, func(tx querier) error {
		var id int64
		err := tx.QueryRowContext(ctx, `SELECT id, latest FROM resources WHERE name = ?`, res).Scan(&id, &start.Latest)
		if errors.Is(err, sql.ErrNoRows) {
			_, err = tx.ExecContext(ctx, `INSERT INTO resources (name, oldest, latest) VALUES (?, ?, ?)`, res, rv, rv)
			return err
		}
		if err != nil {
			return err
		}
		if start.Alive, err = s.aliveAt(ctx, tx, id, start.Latest); err != nil {
			return err
		}
		if start.Latest < rv {
			if _, err := tx.ExecContext(ctx, `INSERT INTO gaps (resource, from_rv, to_rv) VALUES (?, ?, ?)
				ON CONFLICT (resource, from_rv) DO UPDATE SET to_rv = excluded.to_rv`, id, start.Latest, rv); err != nil {
				return err
			}
			if err := s.markGap(ctx, tx, id, start.Latest, start.Alive, time.Now()); err != nil {
				return err
			}
		}
		return s.present(ctx, tx, id, start.Present)
	})
	if err != nil {
		return Start{}, fmt.Errorf("reading the history of %s: %w", res, err)
	}
	return start, nil
}

// present fills m with the objects of resource id present at the end of
// its record, and the resourceVersion of each one's latest revision.
func (s *sqlStore) present(ctx context.Context, q querier, id int64, m map[string]uint64) error {
	rows, err := q.QueryContext(ctx, s.dialect.latestPer(", op", "resource = ?"), id)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			ns, name string
			rv       uint64
			op       Op
		)
		if err := rows.Scan(&ns, &name, &rv, &op); err != nil {
			return err
		}
		if op != Deleted {
			m[Key(ns, name)] = rv
		}
	}
	return rows.Err()
}

// Key is the key Start.Present uses for an object.
func Key(namespace, name string) string { return namespace + "/" + name }

// Write implements Record.
func (s *sqlStore) Write(ctx context.Context, res string, b Batch) error {
	id, err := s.resourceID(ctx, s.conn(), res)
	if err != nil {
		return err
	}
	err = s.inTx(ctx, false, func(q querier) error {
		if err := s.dropCheckpoints(ctx, q, id, b.Revisions); err != nil {
			return err
		}
		rows := insertRows{q: q}
		var bytes int64 // what the batch adds (Usage)
		for i := range b.Revisions {
			r := &b.Revisions[i]
			key := objectKey{id, r.Namespace, r.Name}
			if r.Object == nil { // a deletion found by a list: its last state
				if err := rows.flushFor(ctx, key); err != nil {
					return err
				}
				if err := lastState(ctx, q, id, r); err != nil {
					return err
				}
			}
			head, err := s.headOf(ctx, q, &rows, key, r.Before)
			if err != nil {
				return err
			}
			blob, base, next := codec.Encode(head, r.RV, r.Object)
			bytes += revisionBytes(r, blob)
			if err := rows.add(ctx, key, r.RV, id, r.Namespace, r.Name, r.RV, millis(r.Time), r.Op, r.Manager, base, blob, r.Cells, classOf(head, r)); err != nil {
				return err
			}
			if err := s.markDated(ctx, q, id, r); err != nil {
				return err
			}
			s.put(key, next, r.Before == nil)
		}
		if err := rows.flush(ctx); err != nil {
			return err
		}
		if err := s.markAlive(ctx, q, id, b.Alive); err != nil {
			return err
		}
		now := time.Now()
		marked, err := endBatch(ctx, q, id, b, now)
		if err != nil {
			return err
		}
		if marked {
			bytes += markBytes
		}
		return s.countWritten(ctx, q, id, len(b.Revisions), bytes, now)
	})
	if err != nil {
		s.forget() // the keyframes put may not have been committed
		return fmt.Errorf("writing the history of %s to %s: %w", res, s.location, err)
	}
	return nil
}

// dropCheckpoints drops the checkpoints of resource id that revs would
// change: at or after the oldest of them (a recorder writes in order, so
// none usually).
func (s *sqlStore) dropCheckpoints(ctx context.Context, q querier, id int64, revs []Revision) error {
	if !s.checkpoints || len(revs) == 0 {
		return nil
	}
	oldest := revs[0].RV
	for _, r := range revs[1:] {
		oldest = min(oldest, r.RV)
	}
	_, err := q.ExecContext(ctx, `DELETE FROM checkpoints WHERE resource = ? AND rv >= ?`, id, oldest)
	return err
}

// insertRows writes revisions, or writes them again (a batch retried
// after a failed commit), up to insertMany in one statement: a round trip
// per revision was most of what a batch cost on PostgreSQL
// (BenchmarkWriteBatch). A revision's row waits until the statement is
// full, the batch ends, or a read of its object's revisions needs it
// written.
type insertRows struct {
	q       querier
	args    []any
	pending map[revisionKey]bool // one row each: a statement updates a row once
	objects map[objectKey]bool   // the objects of the rows pending
}

type revisionKey struct {
	objectKey
	rv uint64
}

// insertMany is a power of two: flush writes its rows in statements of
// the largest power of two that fits, then the rest the same way, so that
// a store prepares seven inserts, not one for each number of rows a batch
// ends with (preparing an insert of many rows costs more than running it:
// in the bench's recording rounds, a daemon prepared 70 of them).
const (
	insertMany   = 64
	revisionRow  = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
	insertHead   = `INSERT INTO revisions (resource, namespace, name, rv, time, op, manager, base, object, cells, class) VALUES `
	insertUpsert = ` ON CONFLICT (resource, namespace, name, rv) DO UPDATE SET time = excluded.time, op = excluded.op,
		manager = excluded.manager, base = excluded.base, object = excluded.object, cells = excluded.cells, class = excluded.class`
)

// insertQueries[i] inserts 1<<i rows.
var insertQueries = func() []string {
	var qs []string
	for rows := 1; rows <= insertMany; rows *= 2 {
		qs = append(qs, insertHead+strings.Repeat(revisionRow+", ", rows-1)+revisionRow+insertUpsert)
	}
	return qs
}()

// add queues one revision's row (its columns as insertHead names them).
func (ir *insertRows) add(ctx context.Context, key objectKey, rv uint64, row ...any) error {
	k := revisionKey{key, rv}
	if ir.pending[k] {
		if err := ir.flush(ctx); err != nil {
			return err
		}
	}
	if ir.pending == nil {
		ir.pending, ir.objects = map[revisionKey]bool{}, map[objectKey]bool{}
	}
	ir.pending[k], ir.objects[key] = true, true
	ir.args = append(ir.args, row...)
	if len(ir.pending) == insertMany {
		return ir.flush(ctx)
	}
	return nil
}

// flush writes the rows queued.
func (ir *insertRows) flush(ctx context.Context) error {
	n := len(ir.pending)
	if n == 0 {
		return nil
	}
	width := len(ir.args) / n
	var err error
	for args := ir.args; len(args) > 0 && err == nil; {
		rows := 1 << (bits.Len(uint(len(args)/width)) - 1)
		_, err = ir.q.ExecContext(ctx, insertQueries[bits.TrailingZeros(uint(rows))], args[:rows*width]...)
		args = args[rows*width:]
	}
	ir.args = ir.args[:0]
	clear(ir.pending)
	clear(ir.objects)
	return err
}

// flushFor writes the rows queued when one is of the object key, whose
// revisions are about to be read.
func (ir *insertRows) flushFor(ctx context.Context, key objectKey) error {
	if !ir.objects[key] {
		return nil
	}
	return ir.flush(ctx)
}

// endBatch moves where the record of resource id is complete to (b.RV),
// keeps b's columns, and marks when the newest resourceVersion of any
// resource was first recorded (marked says it did): resources write at
// their own pace, and a time must name the newest state written by then,
// whichever wrote last (a later write of an older or equal one leaves the
// mark: the state was reached when first marked). A batch of no revision
// (a Lease's renewal not kept, a bookmark) is marked only when the newest
// mark is emptyMarkEvery old: the state at its resourceVersion is the
// state at the mark before, and on an idle cluster whose nodes renew
// their Leases such marks were more than half of what the record grew by.
func endBatch(ctx context.Context, q querier, id int64, b Batch, now time.Time) (marked bool, err error) {
	if _, err := q.ExecContext(ctx, `UPDATE resources SET latest = ? WHERE id = ? AND latest < ?`, b.RV, id, b.RV); err != nil {
		return false, err
	}
	if b.Columns != nil {
		if _, err := q.ExecContext(ctx, `UPDATE resources SET columns = ? WHERE id = ?`, b.Columns, id); err != nil {
			return false, err
		}
	}
	if b.RV == 0 {
		return false, nil
	}
	var newest uint64
	var at int64
	err = q.QueryRowContext(ctx, `SELECT rv, time FROM marks ORDER BY rv DESC LIMIT 1`).Scan(&newest, &at)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return false, err
	case b.RV <= newest, len(b.Revisions) == 0 && now.Sub(fromMillis(at)) < emptyMarkEvery:
		return false, nil
	}
	_, err = q.ExecContext(ctx, `INSERT INTO marks (rv, time) VALUES (?, ?) ON CONFLICT (rv) DO NOTHING`, b.RV, millis(now))
	return err == nil, err
}

// emptyMarkEvery is how often at most a batch of no revision is marked.
const emptyMarkEvery = 10 * time.Second

// headOf returns the head of an object's chain, nil when it has no
// revision: from the cache (before, the JSON the writer had of the
// object's latest revision, may stand for it), or read from the store
// once rows are written.
func (s *sqlStore) headOf(ctx context.Context, q querier, rows *insertRows, key objectKey, before []byte) (*codec.Head, error) {
	if head, ok := s.get(key, before); ok {
		return head, nil
	}
	if err := rows.flushFor(ctx, key); err != nil { // read from the revisions written
		return nil, err
	}
	s.reads.Add(1)
	return readHead(ctx, q, key)
}

// headChain is the chain of an object's latest revision, keyframe first,
// in one statement (where a read of the latest revision's base, then of
// the chain, was two: most of what writing a change of an object not in
// memory cost).
const headChain = `SELECT rv, object FROM revisions WHERE resource = ? AND namespace = ? AND name = ? AND rv >= (
	SELECT CASE WHEN base = 0 THEN rv ELSE base END FROM revisions
	WHERE resource = ? AND namespace = ? AND name = ? ORDER BY rv DESC LIMIT 1) ORDER BY rv`

// readHead reads the head of an object's chain, nil when it has no
// revision.
func readHead(ctx context.Context, q querier, key objectKey) (*codec.Head, error) {
	doc, frame, n, err := queryChain(ctx, q, headChain, key.resource, key.namespace, key.name, key.resource, key.namespace, key.name)
	if err != nil {
		return nil, fmt.Errorf("%s/%s: %w", key.namespace, key.name, err)
	}
	if n == 0 {
		return nil, nil
	}
	return &codec.Head{Frame: frame, Depth: n, JSON: doc}, nil
}

// lastState sets r's object and cells to its object's latest revision's.
func lastState(ctx context.Context, q querier, id int64, r *Revision) error {
	row := q.QueryRowContext(ctx, `SELECT namespace, name, rv, time, op, manager, base, object, cells
		FROM revisions WHERE resource = ? AND namespace = ? AND name = ? ORDER BY rv DESC LIMIT 1`, id, r.Namespace, r.Name)
	last, base, err := scanRevision(row)
	if err != nil {
		return fmt.Errorf("the last state of %s/%s: %w", r.Namespace, r.Name, err)
	}
	if base != 0 {
		if last.Object, _, err = chain(ctx, q, objectKey{id, r.Namespace, r.Name}, base, last.RV); err != nil {
			return err
		}
	}
	r.Object, r.Cells = last.Object, last.Cells
	return nil
}
