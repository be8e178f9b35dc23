package history

import (
	"context"
	"fmt"
	"time"
)

// What the record costs: the written table counts, per resource and
// minute, the revisions each Write added and their bytes, so that
// Usage (serve status's bytes per hour per kind) reads a few rows, not
// the revisions. Like the dating tables it is made in a history of any
// age when opened to write; one written before it counts from then on.
const writtenTable = `CREATE TABLE IF NOT EXISTS written (
	resource BIGINT NOT NULL,
	minute BIGINT NOT NULL,
	revisions BIGINT NOT NULL,
	bytes BIGINT NOT NULL,
	PRIMARY KEY (resource, minute)
)`

// The bytes a row takes beside its blobs and strings: a revision's five
// numbers, a mark's two. An estimate of what the database stores (its
// pages also hold the indexes' entries, and free space), kept the same
// on both engines.
const (
	revisionNumbers = 5 * 8
	markBytes       = 2 * 8
)

// Usage is what the record of one resource grew by since a time.
type Usage struct {
	// Resource is its name in the history ("pods.v1.", "leases.v1.coordination.k8s.io").
	Resource string
	// Revisions is how many revisions were written.
	Revisions int64
	// Bytes is what they take (each one's encoded object, printer cells,
	// namespace, name, manager and numbers), with the marks its writes
	// added (a write that moves where the record ends, without a revision:
	// a Lease's renewal not kept).
	Bytes int64
}

// withWritten makes the written table when writable, and says whether
// the history has it.
func (s *sqlStore) withWritten(ctx context.Context, readOnly bool) error {
	if !readOnly {
		if _, err := s.db.ExecContext(ctx, writtenTable); err != nil {
			return fmt.Errorf("making the written table: %w", err)
		}
	}
	var n int
	s.written = s.db.QueryRowContext(ctx, `SELECT count(*) FROM written WHERE resource = -1`).Scan(&n) == nil
	return nil
}

// countWritten adds a batch's revisions and bytes to resource id's
// minute now.
func (s *sqlStore) countWritten(ctx context.Context, q querier, id int64, revisions int, bytes int64, now time.Time) error {
	if !s.written || (revisions == 0 && bytes == 0) {
		return nil
	}
	_, err := q.ExecContext(ctx, `INSERT INTO written (resource, minute, revisions, bytes) VALUES (?, ?, ?, ?)
		ON CONFLICT (resource, minute) DO UPDATE SET revisions = written.revisions + excluded.revisions, bytes = written.bytes + excluded.bytes`,
		id, minuteOf(now), revisions, bytes)
	return err
}

// minuteOf is t's minute since the Unix epoch.
func minuteOf(t time.Time) int64 { return t.Unix() / 60 }

// revisionBytes is what Usage counts for one revision written.
func revisionBytes(r *Revision, blob []byte) int64 {
	return int64(len(blob) + len(r.Cells) + len(r.Namespace) + len(r.Name) + len(r.Manager) + revisionNumbers)
}

// Usage returns what each resource's record grew by in the minutes from
// since's on (the minute since falls in counts whole), by resource name;
// a resource that wrote nothing is left out, as is all of it in a
// history written before the written table existed (then nil).
func (s *sqlStore) Usage(ctx context.Context, since time.Time) ([]Usage, error) {
	if !s.written {
		return nil, nil
	}
	rows, err := s.conn().QueryContext(ctx, `SELECT r.name, sum(w.revisions), sum(w.bytes) FROM written w
		JOIN resources r ON r.id = w.resource WHERE w.minute >= ? GROUP BY r.name ORDER BY r.name`, minuteOf(since))
	if err != nil {
		return nil, s.readError("", err)
	}
	defer rows.Close()
	var out []Usage
	for rows.Next() {
		var u Usage
		if err := rows.Scan(&u.Resource, &u.Revisions, &u.Bytes); err != nil {
			return nil, s.readError("", err)
		}
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		return nil, s.readError("", err)
	}
	return out, nil
}
