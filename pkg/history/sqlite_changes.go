package history

import (
	"context"
	"database/sql"
	"errors"
)

// Changes implements Store.
func (s *SQLite) Changes(ctx context.Context, res string, from, to uint64) ([]Revision, error) {
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
	if err := s.coversRange(ctx, tx, id, from, to); err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT namespace, name, rv, time, op, manager, base, object, cells
		FROM revisions WHERE resource = ? AND rv > ? AND rv <= ? ORDER BY rv`, id, from, to)
	if err != nil {
		return nil, s.readError(res, err)
	}
	defer rows.Close()
	var (
		out  []Revision
		last = map[objectKey][]byte{} // each object's JSON at its revision before
	)
	for rows.Next() {
		r, base, err := scanRevision(rows)
		if err != nil {
			return nil, s.readError(res, err)
		}
		key := objectKey{id, r.Namespace, r.Name}
		if base != 0 {
			if prev, ok := last[key]; ok {
				r.Object, err = decode(r.Object, prev)
			} else { // its chain starts before from
				r.Object, _, err = chain(ctx, q, key, base, r.RV)
			}
			if err != nil {
				return nil, s.readError(res, err)
			}
		}
		last[key] = r.Object
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, s.readError(res, err)
	}
	return out, nil
}

// coversRange fails unless the record of resource id holds every change
// after from up to to: from within it (covers) and no gap across.
func (s *SQLite) coversRange(ctx context.Context, q querier, id int64, from, to uint64) error {
	if err := s.covers(ctx, q, id, from); err != nil {
		return err
	}
	var g GapError
	err := q.QueryRowContext(ctx, `SELECT from_rv, to_rv FROM gaps WHERE resource = ? AND from_rv < ? AND to_rv > ? LIMIT 1`, id, to, from).Scan(&g.From, &g.To)
	switch {
	case err == nil:
		return &g
	case errors.Is(err, sql.ErrNoRows):
		return nil
	}
	return err
}
