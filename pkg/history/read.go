package history

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history/internal/codec"
)

// latestRevisions is the state of resource id at rv from each object's
// latest revision at or before it (no checkpoint holds it).
func (s *sqlStore) latestRevisions(ctx context.Context, q querier, id int64, rv uint64) ([]Revision, error) {
	revs, deltas, err := scanRevisions(q.QueryContext(ctx, s.dialect.latestPer(", time, op, manager, base, object, cells", "resource = ? AND rv <= ?"), id, rv))
	if err == nil {
		err = undelta(ctx, q, id, revs, deltas)
	}
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(revs, func(r Revision) bool { return r.Op == Deleted }), nil
}

// delta is a revision read whose object is a delta of the keyframe at
// base: revs[i] of a scanRevisions, decoded once its rows are closed (a
// connection to PostgreSQL reads one result at a time).
type delta struct {
	i    int
	base uint64
}

// scanRevisions reads the revisions of rows (as scanRevision), and
// which of them are deltas.
func scanRevisions(rows *sql.Rows, err error) ([]Revision, []delta, error) {
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var (
		out    []Revision
		deltas []delta
	)
	for rows.Next() {
		r, base, err := scanRevision(rows)
		if err != nil {
			return nil, nil, err
		}
		if base != 0 {
			deltas = append(deltas, delta{len(out), base})
		}
		out = append(out, r)
	}
	return out, deltas, rows.Err()
}

// undelta decodes the objects of revs that are deltas but deletions, each
// one's chain read from its keyframe on.
func undelta(ctx context.Context, q querier, id int64, revs []Revision, deltas []delta) error {
	for _, d := range deltas {
		r := &revs[d.i]
		if r.Op == Deleted {
			continue
		}
		doc, _, err := chain(ctx, q, objectKey{id, r.Namespace, r.Name}, d.base, r.RV)
		if err != nil {
			return err
		}
		r.Object = doc
	}
	return nil
}

// covers fails unless the record of resource id tells the state at rv.
func (s *sqlStore) covers(ctx context.Context, q querier, id int64, rv uint64) error {
	var oldest uint64
	if err := q.QueryRowContext(ctx, `SELECT oldest FROM resources WHERE id = ?`, id).Scan(&oldest); err != nil {
		return err
	}
	if rv < oldest {
		return s.beforeError(ctx, q, Beginning{RV: oldest}, false)
	}
	return s.gapWithin(ctx, q, id, rv, rv)
}

// gapWithin returns the *GapError of a gap of resource id that ends after
// from and starts before to, nil when none does.
func (s *sqlStore) gapWithin(ctx context.Context, q querier, id int64, from, to uint64) error {
	var g GapError
	err := q.QueryRowContext(ctx, `SELECT from_rv, to_rv FROM gaps WHERE resource = ? AND from_rv < ? AND to_rv > ? LIMIT 1`, id, to, from).Scan(&g.From, &g.To)
	switch {
	case err == nil:
		if err := s.gapTimes(ctx, q, id, &g); err != nil {
			return err
		}
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
	doc, err := codec.Decode(blob, nil)
	r.Object = doc
	return r, 0, err
}

// chain decodes the revision of an object at rv, whose chain starts with
// the keyframe at base, and says how many revisions the chain has up to it.
func chain(ctx context.Context, q querier, key objectKey, base, rv uint64) ([]byte, int, error) {
	doc, _, n, err := queryChain(ctx, q, `SELECT rv, object FROM revisions WHERE resource = ? AND namespace = ? AND name = ? AND rv >= ? AND rv <= ? ORDER BY rv`,
		key.resource, key.namespace, key.name, base, rv)
	if err != nil {
		return nil, 0, fmt.Errorf("%s/%s at %d: %w", key.namespace, key.name, rv, err)
	}
	return doc, n, nil
}

// queryChain decodes the chain a query's rows hold (rv, object; keyframe
// first): the last revision's JSON, the first one's resourceVersion and
// the revisions read (none: a nil JSON).
func queryChain(ctx context.Context, q querier, query string, args ...any) (doc []byte, frame uint64, n int, err error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, 0, 0, err
	}
	defer rows.Close()
	var blobs [][]byte
	for rows.Next() {
		var (
			rv   uint64
			blob []byte
		)
		if err := rows.Scan(&rv, &blob); err != nil {
			return nil, 0, 0, err
		}
		if blobs == nil {
			frame = rv
		}
		blobs = append(blobs, blob)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, 0, err
	}
	doc, err = codec.DecodeChain(blobs)
	return doc, frame, len(blobs), err
}

// Revisions implements Record.
func (s *sqlStore) Revisions(ctx context.Context, res, namespace, name string) ([]Revision, error) {
	id, err := s.resourceID(ctx, s.conn(), res)
	if err != nil {
		return nil, err
	}
	rows, err := s.conn().QueryContext(ctx, `SELECT namespace, name, rv, time, op, manager, base, object, cells
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
			if r.Object, err = codec.Decode(r.Object, prev); err != nil {
				return nil, s.readError(res, err)
			}
		}
		prev = r.Object
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, s.readError(res, err)
	}
	rows.Close() // a connection to PostgreSQL reads one result at a time
	if err := s.sinceOf(ctx, s.conn(), id, namespace, name, out); err != nil {
		return nil, s.readError(res, err)
	}
	return out, nil
}

// Latest implements Record.
func (s *sqlStore) Latest(ctx context.Context, res string) (uint64, error) {
	var rv uint64
	err := s.conn().QueryRowContext(ctx, `SELECT latest FROM resources WHERE name = ?`, res).Scan(&rv)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("%s: %w", res, ErrNotRecorded)
	}
	if err != nil {
		return 0, s.readError(res, err)
	}
	return rv, nil
}

// Columns implements Record.
func (s *sqlStore) Columns(ctx context.Context, res string) ([]byte, error) {
	var cols []byte
	err := s.conn().QueryRowContext(ctx, `SELECT columns FROM resources WHERE name = ?`, res).Scan(&cols)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%s: %w", res, ErrNotRecorded)
	}
	if err != nil {
		return nil, s.readError(res, err)
	}
	return cols, nil
}

// ResourceVersionAt implements Record.
func (s *sqlStore) ResourceVersionAt(ctx context.Context, t time.Time) (uint64, error) {
	var rv uint64
	err := s.conn().QueryRowContext(ctx, `SELECT rv FROM marks WHERE time <= ? ORDER BY time DESC, rv DESC LIMIT 1`, millis(t)).Scan(&rv)
	if err == nil {
		return rv, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, s.readError("", err)
	}
	var ms int64
	if err := s.conn().QueryRowContext(ctx, `SELECT rv, time FROM marks ORDER BY time LIMIT 1`).Scan(&rv, &ms); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return 0, fmt.Errorf("the history %s: %w", s.location, ErrNotRecorded)
		}
		return 0, s.readError("", err)
	}
	err = s.beforeError(ctx, s.conn(), Beginning{RV: rv, Time: fromMillis(ms)}, true)
	if before := new(BeforeError); !errors.As(err, &before) {
		err = s.readError("", err)
	}
	return 0, err
}

// TimeOf implements Record.
func (s *sqlStore) TimeOf(ctx context.Context, rv uint64) (time.Time, error) {
	var ms int64
	err := s.conn().QueryRowContext(ctx, `SELECT time FROM marks WHERE rv <= ? ORDER BY rv DESC LIMIT 1`, rv).Scan(&ms)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return time.Time{}, nil
	case err != nil:
		return time.Time{}, s.readError("", err)
	}
	return fromMillis(ms), nil
}
