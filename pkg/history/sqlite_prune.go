package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Prune implements Store: for each resource, the state at the newest
// resourceVersion written by t (the cut) is kept as each object's revision
// at the cut, and everything before it goes: older revisions, deletions
// before the cut, gaps that ended by then, marks. A revision kept that is
// a delta of a keyframe that goes is written again as a keyframe first.
func (s *SQLite) Prune(ctx context.Context, t time.Time) error {
	cut, err := s.ResourceVersionAt(ctx, t)
	var before *BeforeError
	if errors.As(err, &before) || errors.Is(err, ErrNotRecorded) {
		return nil // nothing is that old
	}
	if err != nil {
		return err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, name FROM resources WHERE oldest < ?`, cut)
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
	defer s.forget()
	for id, name := range ids {
		if err := s.inTx(ctx, func(tx *sql.Tx) error { return pruneResource(ctx, tx, id, cut) }); err != nil {
			return fmt.Errorf("pruning the history of %s in %s: %w", name, s.path, err)
		}
	}
	_, err = s.db.ExecContext(ctx, `DELETE FROM marks WHERE rv < ?`, cut)
	return err
}

// floor is an object's latest revision at the cut.
type floor struct {
	namespace, name string
	rv              uint64
	deleted         bool
}

// pruneResource prunes one resource at cut.
func pruneResource(ctx context.Context, tx *sql.Tx, id int64, cut uint64) error {
	floors, err := floorsAt(ctx, tx, id, cut)
	if err != nil {
		return err
	}
	for _, f := range floors {
		if err := rekey(ctx, tx, id, f); err != nil {
			return err
		}
		drop := `DELETE FROM revisions WHERE resource = ? AND namespace = ? AND name = ? AND rv < ?`
		if f.deleted {
			drop = `DELETE FROM revisions WHERE resource = ? AND namespace = ? AND name = ? AND rv <= ?`
		}
		if _, err := tx.ExecContext(ctx, drop, id, f.namespace, f.name, f.rv); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM gaps WHERE resource = ? AND to_rv <= ?`, id, cut); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE resources SET oldest = max(oldest, ?) WHERE id = ?`, cut, id)
	return err
}

func floorsAt(ctx context.Context, tx *sql.Tx, id int64, cut uint64) ([]floor, error) {
	rows, err := tx.QueryContext(ctx, `SELECT namespace, name, max(rv), op FROM revisions WHERE resource = ? AND rv <= ? GROUP BY namespace, name`, id, cut)
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
// rest of its chain start there.
func rekey(ctx context.Context, tx *sql.Tx, id int64, f floor) error {
	first := `rv >= ?`
	if f.deleted {
		first = `rv > ?`
	}
	var rv, base uint64
	err := tx.QueryRowContext(ctx, `SELECT rv, base FROM revisions WHERE resource = ? AND namespace = ? AND name = ? AND `+first+` ORDER BY rv LIMIT 1`,
		id, f.namespace, f.name, f.rv).Scan(&rv, &base)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && base == 0) {
		return nil
	}
	if err != nil {
		return err
	}
	key := objectKey{id, f.namespace, f.name}
	doc, _, err := chain(ctx, tx, key, base, rv)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE revisions SET base = 0, object = ? WHERE resource = ? AND namespace = ? AND name = ? AND rv = ?`,
		encodeKeyframe(doc), id, f.namespace, f.name, rv); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE revisions SET base = ? WHERE resource = ? AND namespace = ? AND name = ? AND base = ? AND rv > ?`,
		rv, id, f.namespace, f.name, base, rv)
	return err
}

// Shrink prunes the oldest part of the history (as Prune does: each
// object's state at the cut is kept) until the pages in use take at most
// limit bytes, and returns the bytes they take then. It stops short, with
// more, when pruning frees nothing more: what is kept (the state at the
// newest cut) takes more than limit. The file keeps its largest size (SQLite
// reuses the pages freed), so it stays within limit plus what is kept.
func (s *SQLite) Shrink(ctx context.Context, limit int64) (int64, error) {
	used, err := s.usedBytes(ctx)
	for i := 0; err == nil && used > limit && i < 16; i++ {
		var marks int64
		if err = s.db.QueryRowContext(ctx, `SELECT count(*) FROM marks`).Scan(&marks); err != nil || marks < 2 {
			break
		}
		// Cut where the marks say that much of the record (and a tenth
		// more) lies before: marks are as many as the writes, which are
		// roughly even in bytes.
		drop := min(marks-1, max(1, int64(float64(marks)*(1.1-float64(limit)/float64(used)))))
		var ms int64
		if err = s.db.QueryRowContext(ctx, `SELECT time FROM marks ORDER BY rv LIMIT 1 OFFSET ?`, drop).Scan(&ms); err != nil {
			break
		}
		if err = s.Prune(ctx, fromMillis(ms)); err != nil {
			break
		}
		var now int64
		if now, err = s.usedBytes(ctx); err == nil && now >= used {
			return now, nil // nothing more to free
		}
		used = now
	}
	if err != nil {
		return used, fmt.Errorf("shrinking the history %s: %w", s.path, err)
	}
	return used, nil
}

// usedBytes is what the database's pages in use take (its free pages
// aside).
func (s *SQLite) usedBytes(ctx context.Context) (int64, error) {
	var pages, free, size int64
	for q, v := range map[string]*int64{`PRAGMA page_count`: &pages, `PRAGMA freelist_count`: &free, `PRAGMA page_size`: &size} {
		if err := s.db.QueryRowContext(ctx, q).Scan(v); err != nil {
			return 0, err
		}
	}
	return (pages - free) * size, nil
}
