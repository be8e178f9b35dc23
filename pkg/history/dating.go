package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// The tables that say what the record knows of time beyond when each
// write happened (marks): when each resource's record was last known
// current (alive), when each gap began and ended (gapTimes), and the
// changes seen late, dated within a window (dated). They are made in a
// history of any age when opened to write; a history written before them
// reads as before: every time exact, gaps without times.
var datingTables = []string{
	// The last time the recorder of resource knew its record complete:
	// its queue empty, everything its store had applied written.
	`CREATE TABLE IF NOT EXISTS alive (
		resource BIGINT NOT NULL PRIMARY KEY,
		time BIGINT NOT NULL
	)`,
	// When the recorder last knew the resource current before a gap
	// (from_time) and when it listed again (to_time).
	`CREATE TABLE IF NOT EXISTS gap_times (
		resource BIGINT NOT NULL,
		from_rv BIGINT NOT NULL,
		from_time BIGINT NOT NULL,
		to_time BIGINT NOT NULL,
		PRIMARY KEY (resource, from_rv)
	)`,
	// A change the recorder saw late (it was catching up after a restart)
	// happened after since and by until (revisions.time), milliseconds.
	`CREATE TABLE IF NOT EXISTS dated (
		resource BIGINT NOT NULL,
		namespace TEXT NOT NULL,
		name TEXT NOT NULL,
		rv BIGINT NOT NULL,
		since BIGINT NOT NULL,
		until BIGINT NOT NULL,
		PRIMARY KEY (resource, namespace, name, rv)
	)`,
	`CREATE INDEX IF NOT EXISTS dated_rv ON dated (resource, rv)`,
}

// withDating makes the dating tables when writable, and says whether the
// history has them.
func (s *sqlStore) withDating(ctx context.Context, readOnly bool) error {
	if !readOnly {
		for _, stmt := range datingTables {
			if _, err := s.db.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("making the dating tables: %w", err)
			}
		}
	}
	var n int
	s.dating = s.db.QueryRowContext(ctx, `SELECT count(*) FROM dated WHERE resource = -1`).Scan(&n) == nil
	return nil
}

// aliveAt is when the recorder of resource id last knew its record
// current: the alive table's, else when the record reached latest (a
// history written before the table existed); zero when unknown.
func (s *sqlStore) aliveAt(ctx context.Context, q querier, id int64, latest uint64) (time.Time, error) {
	var ms int64
	if s.dating {
		err := q.QueryRowContext(ctx, `SELECT time FROM alive WHERE resource = ?`, id).Scan(&ms)
		if err == nil {
			return fromMillis(ms), nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return time.Time{}, err
		}
	}
	err := q.QueryRowContext(ctx, `SELECT time FROM marks WHERE rv <= ? ORDER BY rv DESC LIMIT 1`, latest).Scan(&ms)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return time.Time{}, nil
	case err != nil:
		return time.Time{}, err
	}
	return fromMillis(ms), nil
}

// markGap keeps the times of a gap of resource id from from_rv: the
// record was last known current at since, and lists again now.
func (s *sqlStore) markGap(ctx context.Context, q querier, id int64, from uint64, since, now time.Time) error {
	if !s.dating || since.IsZero() {
		return nil
	}
	_, err := q.ExecContext(ctx, `INSERT INTO gap_times (resource, from_rv, from_time, to_time) VALUES (?, ?, ?, ?)
		ON CONFLICT (resource, from_rv) DO UPDATE SET to_time = excluded.to_time`, id, from, millis(since), millis(now))
	return err
}

// markAlive keeps when resource id's record was last known current.
func (s *sqlStore) markAlive(ctx context.Context, q querier, id int64, at time.Time) error {
	if !s.dating || at.IsZero() {
		return nil
	}
	_, err := q.ExecContext(ctx, `INSERT INTO alive (resource, time) VALUES (?, ?)
		ON CONFLICT (resource) DO UPDATE SET time = excluded.time`, id, millis(at))
	return err
}

// markDated keeps the window of a revision seen late.
func (s *sqlStore) markDated(ctx context.Context, q querier, id int64, r *Revision) error {
	if !s.dating || r.Since.IsZero() {
		return nil
	}
	_, err := q.ExecContext(ctx, `INSERT INTO dated (resource, namespace, name, rv, since, until) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (resource, namespace, name, rv) DO UPDATE SET since = excluded.since, until = excluded.until`,
		id, r.Namespace, r.Name, r.RV, millis(r.Since), millis(r.Time))
	return err
}

// gapTimes fills in g's times, when the history kept them.
func (s *sqlStore) gapTimes(ctx context.Context, q querier, id int64, g *GapError) error {
	if !s.dating {
		return nil
	}
	var from, to int64
	err := q.QueryRowContext(ctx, `SELECT from_time, to_time FROM gap_times WHERE resource = ? AND from_rv = ?`, id, g.From).Scan(&from, &to)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return err
	}
	g.Since, g.Until = fromMillis(from), fromMillis(to)
	return nil
}

// sinceOf fills in the Since of revs (one object's, of resource id) that
// were seen late.
func (s *sqlStore) sinceOf(ctx context.Context, q querier, id int64, namespace, name string, revs []Revision) error {
	if !s.dating || len(revs) == 0 {
		return nil
	}
	rows, err := q.QueryContext(ctx, `SELECT rv, since FROM dated WHERE resource = ? AND namespace = ? AND name = ?`, id, namespace, name)
	if err != nil {
		return err
	}
	defer rows.Close()
	since := map[uint64]int64{}
	for rows.Next() {
		var (
			rv uint64
			ms int64
		)
		if err := rows.Scan(&rv, &ms); err != nil {
			return err
		}
		since[rv] = ms
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for i := range revs {
		if ms, ok := since[revs[i].RV]; ok {
			revs[i].Since = fromMillis(ms)
		}
	}
	return nil
}
