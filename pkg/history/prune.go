package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history/internal/codec"
)

// Prune implements Store: for each resource, the state at the newest
// resourceVersion written by t (the cut) is kept as each object's revision
// at the cut, and everything before it goes: older revisions, deletions
// before the cut, gaps that ended by then, marks, the counts of what was
// written (usage.go). A revision kept that is a delta of a keyframe that
// goes is written again as a keyframe first. A prune that drops anything
// keeps its cut and cause: the record begins there (begins.go).
func (s *sqlStore) Prune(ctx context.Context, t time.Time, cause Cause) error {
	cut, err := s.ResourceVersionAt(ctx, t)
	var before *BeforeError
	if errors.As(err, &before) || errors.Is(err, ErrNotRecorded) {
		return nil // nothing is that old
	}
	if err != nil {
		return err
	}
	rows, err := s.conn().QueryContext(ctx, `SELECT id, name FROM resources WHERE oldest < ?`, cut)
	if err != nil {
		return s.readError("", err)
	}
	ids := map[int64]string{}
	for rows.Next() {
		var (
			id   int64
			name string
		)
		if err := rows.Scan(&id, &name); err != nil {
			rows.Close()
			return s.readError("", err)
		}
		ids[id] = name
	}
	rows.Close()
	if len(ids) > 0 { // chains change: any sums another writer saved meanwhile go
		if _, err := s.conn().ExecContext(ctx, `DELETE FROM heads`); err != nil {
			return fmt.Errorf("pruning the history in %s: %w", s.location, err)
		}
	}
	for id, name := range ids {
		var rekeyed []objectKey
		err := s.inTx(ctx, false, func(q querier) error {
			var err error
			rekeyed, err = s.pruneResource(ctx, q, id, cut)
			return err
		})
		s.drop(rekeyed) // their chains start elsewhere now (or would have, had the prune gone through)
		if err != nil {
			return fmt.Errorf("pruning the history of %s in %s: %w", name, s.location, err)
		}
	}
	return s.pruned(ctx, cut, t, cause, len(ids) > 0)
}

// pruned drops the marks before cut and, for retention, the counts
// before t, and keeps
// cut and cause when the record's start moved (moved, or a mark went).
func (s *sqlStore) pruned(ctx context.Context, cut uint64, t time.Time, cause Cause, moved bool) error {
	return s.inTx(ctx, false, func(q querier) error {
		res, err := q.ExecContext(ctx, `DELETE FROM marks WHERE rv < ?`, cut)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err == nil && n > 0 {
			moved = true
		}
		if s.written && cause.Retention > 0 { // a prune for size keeps the counts: what was written lately, pruned or not
			if _, err := q.ExecContext(ctx, `DELETE FROM written WHERE minute < ?`, minuteOf(t)); err != nil {
				return err
			}
		}
		if !moved {
			return nil
		}
		return markPruned(ctx, q, cut, cause)
	})
}

// floor is an object's latest revision at the cut.
type floor struct {
	namespace, name string
	rv              uint64
	deleted         bool
}

// pruneResource prunes one resource at cut, and returns the objects
// whose chains it made start elsewhere (rekey).
func (s *sqlStore) pruneResource(ctx context.Context, tx querier, id int64, cut uint64) (rekeyed []objectKey, err error) {
	floors, err := s.floorsAt(ctx, tx, id, cut)
	if err != nil {
		return nil, err
	}
	for _, f := range floors {
		again, err := rekey(ctx, tx, id, f)
		if again || f.deleted { // a chain starts elsewhere, or an object's revisions go
			rekeyed = append(rekeyed, objectKey{id, f.namespace, f.name})
		}
		if err != nil {
			return rekeyed, err
		}
		drop := `DELETE FROM revisions WHERE resource = ? AND namespace = ? AND name = ? AND rv < ?`
		if f.deleted {
			drop = `DELETE FROM revisions WHERE resource = ? AND namespace = ? AND name = ? AND rv <= ?`
		}
		if _, err := tx.ExecContext(ctx, drop, id, f.namespace, f.name, f.rv); err != nil {
			return rekeyed, err
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM gaps WHERE resource = ? AND to_rv <= ?`, id, cut); err != nil {
		return rekeyed, err
	}
	if s.dating {
		if _, err := tx.ExecContext(ctx, `DELETE FROM gap_times WHERE resource = ? AND from_rv NOT IN (SELECT from_rv FROM gaps WHERE resource = ?)`, id, id); err != nil {
			return rekeyed, err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM dated WHERE resource = ? AND rv <= ?`, id, cut); err != nil {
			return rekeyed, err
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM checkpoints WHERE resource = ? AND rv < ?`, id, cut); err != nil {
		return rekeyed, err
	}
	_, err = tx.ExecContext(ctx, `UPDATE resources SET oldest = ? WHERE id = ? AND oldest < ?`, cut, id, cut)
	return rekeyed, err
}

func (s *sqlStore) floorsAt(ctx context.Context, tx querier, id int64, cut uint64) ([]floor, error) {
	rows, err := tx.QueryContext(ctx, s.dialect.latestPer(", op", "resource = ? AND rv <= ?"), id, cut)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []floor
	for rows.Next() {
		var (
			f  floor
			op Op
		)
		if err := rows.Scan(&f.namespace, &f.name, &f.rv, &op); err != nil {
			return nil, err
		}
		f.deleted = op == Deleted
		out = append(out, f)
	}
	return out, rows.Err()
}

// rekey makes the first revision of f's object that stays a keyframe
// when it is a delta (its chain starts with revisions that go), and the
// rest of its chain start there; again says it did (or was about to).
func rekey(ctx context.Context, tx querier, id int64, f floor) (again bool, err error) {
	first := `rv >= ?`
	if f.deleted {
		first = `rv > ?`
	}
	var rv, base uint64
	err = tx.QueryRowContext(ctx, `SELECT rv, base FROM revisions WHERE resource = ? AND namespace = ? AND name = ? AND `+first+` ORDER BY rv LIMIT 1`,
		id, f.namespace, f.name, f.rv).Scan(&rv, &base)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && base == 0) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	key := objectKey{id, f.namespace, f.name}
	doc, _, err := chain(ctx, tx, key, base, rv)
	if err != nil {
		return true, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE revisions SET base = 0, object = ? WHERE resource = ? AND namespace = ? AND name = ? AND rv = ?`,
		codec.EncodeKeyframe(doc), id, f.namespace, f.name, rv); err != nil {
		return true, err
	}
	_, err = tx.ExecContext(ctx, `UPDATE revisions SET base = ? WHERE resource = ? AND namespace = ? AND name = ? AND base = ? AND rv > ?`,
		rv, id, f.namespace, f.name, base, rv)
	return true, err
}
