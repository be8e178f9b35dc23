package history

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// Moment is what the record knows of one resource at a time.
type Moment struct {
	// RV: the resource's state at the time is its state at RV, but for
	// the objects of Uncertain.
	RV uint64
	// Uncertain are the changes after RV that may or may not have
	// happened by the time, oldest first: seen late (the recorder was
	// catching up on what happened while it was not running), each dated
	// within a window (Revision.Since, Revision.Time) that holds the time.
	// Only Namespace, Name, RV, Op, Since and Time are set.
	Uncertain []Revision
}

// MomentAt implements Record.
func (s *sqlStore) MomentAt(ctx context.Context, res string, t time.Time) (Moment, error) {
	rv, err := s.ResourceVersionAt(ctx, t)
	if err != nil {
		return Moment{}, err
	}
	id, err := s.resourceID(ctx, s.conn(), res)
	if err != nil || !s.dating {
		return Moment{RV: rv}, err
	}
	if rv, err = s.acrossGap(ctx, id, rv, t); err != nil {
		return Moment{}, err
	}
	m, err := s.datedAt(ctx, id, rv, t)
	if err != nil {
		return Moment{}, s.readError(res, err)
	}
	return m, nil
}

// acrossGap is the resourceVersion whose state of resource id is its
// state at t, given rv, the newest written by t (of any resource): a time
// inside a gap (after the record was last known current, before the list
// that ended it) fails with the gap's *GapError; a time before it is the
// state where the gap starts, a time after it the list's.
func (s *sqlStore) acrossGap(ctx context.Context, id int64, rv uint64, t time.Time) (uint64, error) {
	var (
		g        GapError
		from, to int64
	)
	err := s.conn().QueryRowContext(ctx, `SELECT g.from_rv, g.to_rv, t.from_time, t.to_time FROM gaps g
		JOIN gap_times t ON t.resource = g.resource AND t.from_rv = g.from_rv
		WHERE g.resource = ? AND ((t.from_time < ? AND t.to_time > ?) OR (g.from_rv < ? AND g.to_rv > ?))
		ORDER BY g.from_rv LIMIT 1`, id, millis(t), millis(t), rv, rv).Scan(&g.From, &g.To, &from, &to)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return rv, nil
	case err != nil:
		return 0, err
	}
	g.Since, g.Until = fromMillis(from), fromMillis(to)
	switch ms := millis(t); {
	case ms <= from:
		return min(rv, g.From), nil
	case ms >= to:
		return max(rv, g.To), nil
	}
	return 0, &g
}

// datedAt is the Moment of resource id at t, given rv, the newest
// resourceVersion known to have happened by t: changes dated late move
// it on when they happened by t for sure, and those that may have are
// Uncertain. Their order is their resourceVersions': a change happened
// after every change before it, so what happened by t is everything up
// to some resourceVersion between the two.
func (s *sqlStore) datedAt(ctx context.Context, id int64, rv uint64, t time.Time) (Moment, error) {
	var sure, maybe sql.NullInt64
	ms := millis(t)
	if err := s.conn().QueryRowContext(ctx, `SELECT max(rv) FROM dated WHERE resource = ? AND until <= ?`, id, ms).Scan(&sure); err != nil {
		return Moment{}, err
	}
	if sure.Valid {
		rv = max(rv, uint64(sure.Int64))
	}
	if err := s.conn().QueryRowContext(ctx, `SELECT max(rv) FROM dated WHERE resource = ? AND rv > ? AND since < ?`, id, rv, ms).Scan(&maybe); err != nil {
		return Moment{}, err
	}
	m := Moment{RV: rv}
	if !maybe.Valid {
		return m, nil
	}
	rows, err := s.conn().QueryContext(ctx, `SELECT d.namespace, d.name, d.rv, d.since, d.until, r.op FROM dated d
		JOIN revisions r ON r.resource = d.resource AND r.namespace = d.namespace AND r.name = d.name AND r.rv = d.rv
		WHERE d.resource = ? AND d.rv > ? AND d.rv <= ? ORDER BY d.rv`, id, rv, maybe.Int64)
	if err != nil {
		return Moment{}, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			r            Revision
			since, until int64
		)
		if err := rows.Scan(&r.Namespace, &r.Name, &r.RV, &since, &until, &r.Op); err != nil {
			return Moment{}, err
		}
		r.Since, r.Time = fromMillis(since), fromMillis(until)
		m.Uncertain = append(m.Uncertain, r)
	}
	return m, rows.Err()
}
