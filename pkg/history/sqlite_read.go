package history

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// StateAt implements Store.
func (s *SQLite) StateAt(ctx context.Context, res string, rv uint64) ([]Revision, error) {
	id, err := s.resourceID(ctx, s.db, res)
	if err != nil {
		return nil, err
	}
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true}) // one snapshot
	if err != nil {
		return nil, s.readError(res, err)
	}
	defer tx.Rollback()
	q := newStmtCache(tx)
	defer q.close()
	if err := s.covers(ctx, tx, id, rv); err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT namespace, name, max(rv), time, op, manager, base, object, cells
		FROM revisions WHERE resource = ? AND rv <= ? GROUP BY namespace, name`, id, rv)
	if err != nil {
		return nil, s.readError(res, err)
	}
	defer rows.Close()
	var out []Revision
	for rows.Next() {
		r, base, err := scanRevision(rows)
		if err != nil {
			return nil, s.readError(res, err)
		}
		if r.Op == Deleted {
			continue
		}
		if base != 0 {
			if r.Object, _, err = chain(ctx, q, objectKey{id, r.Namespace, r.Name}, base, r.RV); err != nil {
				return nil, s.readError(res, err)
			}
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, s.readError(res, err)
	}
	return out, nil
}

// covers fails unless the record of resource id tells the state at rv.
func (s *SQLite) covers(ctx context.Context, q querier, id int64, rv uint64) error {
	var oldest uint64
	if err := q.QueryRowContext(ctx, `SELECT oldest FROM resources WHERE id = ?`, id).Scan(&oldest); err != nil {
		return err
	}
	if rv < oldest {
		e := &BeforeError{Oldest: oldest}
		var ms int64
		if q.QueryRowContext(ctx, `SELECT time FROM marks WHERE rv >= ? ORDER BY rv LIMIT 1`, oldest).Scan(&ms) == nil {
			e.Time = fromMillis(ms)
		}
		return e
	}
	var g GapError
	err := q.QueryRowContext(ctx, `SELECT from_rv, to_rv FROM gaps WHERE resource = ? AND from_rv < ? AND to_rv > ? LIMIT 1`, id, rv, rv).Scan(&g.From, &g.To)
	switch {
	case err == nil:
		return &g
	case errors.Is(err, sql.ErrNoRows):
		return nil
	}
	return err
}

// rowScanner is *sql.Rows or *sql.Row.
type rowScanner interface{ Scan(dest ...any) error }

// scanRevision reads namespace, name, rv, time, op, manager, base,
// object and cells; the object is decoded unless it is a delta (base).
func scanRevision(sc rowScanner) (Revision, uint64, error) {
	var (
		r    Revision
		ms   int64
		base uint64
		blob sql.RawBytes // decoded from where the driver holds it: one copy less per row
		dst  any          = &blob
	)
	if _, ok := sc.(*sql.Row); ok { // a Row's Scan refuses RawBytes
		dst = (*[]byte)(&blob)
	}
	if err := sc.Scan(&r.Namespace, &r.Name, &r.RV, &ms, &r.Op, &r.Manager, &base, dst, &r.Cells); err != nil {
		return r, 0, err
	}
	r.Time = fromMillis(ms)
	if base != 0 {
		r.Object = bytes.Clone(blob)
		return r, base, nil
	}
	doc, err := decode(blob, nil)
	r.Object = doc
	return r, 0, err
}

// chain decodes the revision of an object at rv, whose chain starts with
// the keyframe at base, and says how many revisions the chain has up to it.
func chain(ctx context.Context, q querier, key objectKey, base, rv uint64) ([]byte, int, error) {
	rows, err := q.QueryContext(ctx, `SELECT object FROM revisions WHERE resource = ? AND namespace = ? AND name = ? AND rv >= ? AND rv <= ? ORDER BY rv`,
		key.resource, key.namespace, key.name, base, rv)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var blobs [][]byte
	for rows.Next() {
		var blob []byte
		if err := rows.Scan(&blob); err != nil {
			return nil, 0, err
		}
		blobs = append(blobs, blob)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	doc, err := decodeChain(blobs)
	if err != nil {
		return nil, 0, fmt.Errorf("%s/%s at %d: %w", key.namespace, key.name, rv, err)
	}
	return doc, len(blobs), nil
}

// Revisions implements Store.
func (s *SQLite) Revisions(ctx context.Context, res, namespace, name string) ([]Revision, error) {
	id, err := s.resourceID(ctx, s.db, res)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT namespace, name, rv, time, op, manager, base, object, cells
		FROM revisions WHERE resource = ? AND namespace = ? AND name = ? ORDER BY rv`, id, namespace, name)
	if err != nil {
		return nil, s.readError(res, err)
	}
	defer rows.Close()
	out := []Revision{}
	var prev []byte // the JSON of the revision before, in the chain
	for rows.Next() {
		r, base, err := scanRevision(rows)
		if err != nil {
			return nil, s.readError(res, err)
		}
		if base != 0 {
			if r.Object, err = decode(r.Object, prev); err != nil {
				return nil, s.readError(res, err)
			}
		}
		prev = r.Object
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, s.readError(res, err)
	}
	return out, nil
}

// Latest implements Store.
func (s *SQLite) Latest(ctx context.Context, res string) (uint64, error) {
	var rv uint64
	err := s.db.QueryRowContext(ctx, `SELECT latest FROM resources WHERE name = ?`, res).Scan(&rv)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("%s: %w", res, ErrNotRecorded)
	}
	if err != nil {
		return 0, s.readError(res, err)
	}
	return rv, nil
}

// Columns implements Store.
func (s *SQLite) Columns(ctx context.Context, res string) ([]byte, error) {
	var cols []byte
	err := s.db.QueryRowContext(ctx, `SELECT columns FROM resources WHERE name = ?`, res).Scan(&cols)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%s: %w", res, ErrNotRecorded)
	}
	if err != nil {
		return nil, s.readError(res, err)
	}
	return cols, nil
}

// ResourceVersionAt implements Store.
func (s *SQLite) ResourceVersionAt(ctx context.Context, t time.Time) (uint64, error) {
	var rv uint64
	err := s.db.QueryRowContext(ctx, `SELECT rv FROM marks WHERE time <= ? ORDER BY time DESC, rv DESC LIMIT 1`, millis(t)).Scan(&rv)
	if err == nil {
		return rv, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, s.readError("", err)
	}
	var ms int64
	if err := s.db.QueryRowContext(ctx, `SELECT rv, time FROM marks ORDER BY time LIMIT 1`).Scan(&rv, &ms); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return 0, fmt.Errorf("the history %s: %w", s.path, ErrNotRecorded)
		}
		return 0, s.readError("", err)
	}
	return 0, &BeforeError{Oldest: rv, Time: fromMillis(ms)}
}

// TimeOf implements Store.
func (s *SQLite) TimeOf(ctx context.Context, rv uint64) (time.Time, error) {
	var ms int64
	err := s.db.QueryRowContext(ctx, `SELECT time FROM marks WHERE rv <= ? ORDER BY rv DESC LIMIT 1`, rv).Scan(&ms)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return time.Time{}, nil
	case err != nil:
		return time.Time{}, s.readError("", err)
	}
	return fromMillis(ms), nil
}

// readError says which history failed to read.
func (s *SQLite) readError(res string, err error) error {
	if res == "" {
		return fmt.Errorf("reading the history %s: %w", s.path, err)
	}
	return fmt.Errorf("reading the history of %s in %s: %w", res, s.path, err)
}
