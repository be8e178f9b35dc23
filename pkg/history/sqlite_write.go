package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Begin implements Store.
func (s *SQLite) Begin(ctx context.Context, res string, rv uint64) (Start, error) {
	start := Start{Present: map[string]uint64{}}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var id int64
		err := tx.QueryRowContext(ctx, `SELECT id, latest FROM resources WHERE name = ?`, res).Scan(&id, &start.Latest)
		if errors.Is(err, sql.ErrNoRows) {
			_, err = tx.ExecContext(ctx, `INSERT INTO resources (name, oldest, latest) VALUES (?, ?, ?)`, res, rv, rv)
			return err
		}
		if err != nil {
			return err
		}
		if start.Latest < rv {
			if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO gaps (resource, from_rv, to_rv) VALUES (?, ?, ?)`, id, start.Latest, rv); err != nil {
				return err
			}
		}
		return present(ctx, tx, id, start.Present)
	})
	if err != nil {
		return Start{}, fmt.Errorf("reading the history of %s: %w", res, err)
	}
	return start, nil
}

// present fills m with the objects of resource id present at the end of
// its record, and the resourceVersion of each one's latest revision.
func present(ctx context.Context, q querier, id int64, m map[string]uint64) error {
	rows, err := q.QueryContext(ctx, `SELECT namespace, name, max(rv), op FROM revisions WHERE resource = ? GROUP BY namespace, name`, id)
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

// Write implements Store.
func (s *SQLite) Write(ctx context.Context, res string, b Batch) error {
	id, err := s.resourceID(ctx, s.db, res)
	if err != nil {
		return err
	}
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		q := newStmtCache(tx)
		defer q.close()
		for i := range b.Revisions {
			r := &b.Revisions[i]
			key := objectKey{id, r.Namespace, r.Name}
			if r.Object == nil { // a deletion found by a list: its last state
				if err := lastState(ctx, q, id, r); err != nil {
					return err
				}
			}
			head, err := s.headOf(ctx, q, key)
			if err != nil {
				return err
			}
			blob, base, next := encode(head, r.RV, r.Object)
			if _, err := q.ExecContext(ctx, `INSERT OR REPLACE INTO revisions (resource, namespace, name, rv, time, op, manager, base, object, cells) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				id, r.Namespace, r.Name, r.RV, millis(r.Time), r.Op, r.Manager, base, blob, r.Cells); err != nil {
				return err
			}
			s.put(key, next)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE resources SET latest = max(latest, ?), columns = coalesce(?, columns) WHERE id = ?`, b.RV, b.Columns, id); err != nil {
			return err
		}
		if b.RV > 0 {
			// The newest resourceVersion of any resource recorded by now:
			// resources write at their own pace, and a time must name the
			// newest state written by then, whichever wrote last.
			_, err = tx.ExecContext(ctx, `INSERT OR REPLACE INTO marks (rv, time) VALUES (max(?, coalesce((SELECT max(rv) FROM marks), 0)), ?)`, b.RV, millis(time.Now()))
		}
		return err
	})
	if err != nil {
		s.forget() // the keyframes put may not have been committed
		return fmt.Errorf("writing the history of %s to %s: %w", res, s.path, err)
	}
	return nil
}

// headOf returns the head of an object's chain, nil when it has no
// revision, from the cache or the store.
func (s *SQLite) headOf(ctx context.Context, q querier, key objectKey) (*chainHead, error) {
	if head, ok := s.get(key); ok {
		return head, nil
	}
	var rv, base uint64
	err := q.QueryRowContext(ctx, `SELECT rv, base FROM revisions WHERE resource = ? AND namespace = ? AND name = ? ORDER BY rv DESC LIMIT 1`,
		key.resource, key.namespace, key.name).Scan(&rv, &base)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if base == 0 {
		base = rv
	}
	doc, n, err := chain(ctx, q, key, base, rv)
	if err != nil {
		return nil, err
	}
	return &chainHead{frame: base, depth: n, json: doc}, nil
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
