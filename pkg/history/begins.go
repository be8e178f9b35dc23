package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

// Where the record begins, and why: recording began there, or a prune
// moved it (Prune keeps its cut and cause in the meta table:
// pruned_rv, pruned_cause), so that a query before it (a *BeforeError)
// and serve status say which.

// Cause is why a prune cut the record: one of its fields is set.
type Cause struct {
	// Retention: revisions older than it went (serve --record-retention).
	Retention time.Duration
	// MaxSize: the oldest revisions went to keep the file within it
	// (serve --record-max-size; SQLite.Shrink).
	MaxSize int64
}

// String says what the prune did: "older revisions pruned to stay under
// 1Gi", "older revisions pruned after 168h0m0s".
func (c Cause) String() string {
	if c.MaxSize > 0 {
		return "older revisions pruned to stay under " + resource.NewQuantity(c.MaxSize, resource.BinarySI).String()
	}
	return "older revisions pruned after " + c.Retention.String()
}

// encode and parseCause keep a Cause in the meta table.
func (c Cause) encode() string {
	if c.MaxSize > 0 {
		return "max-size " + strconv.FormatInt(c.MaxSize, 10)
	}
	return "retention " + strconv.FormatInt(int64(c.Retention), 10)
}

func parseCause(s string) (Cause, bool) {
	kind, n, _ := strings.Cut(s, " ")
	v, err := strconv.ParseInt(n, 10, 64)
	switch {
	case err != nil:
		return Cause{}, false
	case kind == "max-size":
		return Cause{MaxSize: v}, true
	case kind == "retention":
		return Cause{Retention: time.Duration(v)}, true
	}
	return Cause{}, false
}

// Beginning is where a record begins.
type Beginning struct {
	// RV is the oldest resourceVersion whose state the record tells.
	RV uint64
	// Time is when it was recorded (zero when no write of it is kept).
	Time time.Time
	// Pruned is why older revisions went; nil: recording began there.
	Pruned *Cause
}

// Why says why the record begins there: "recording began then", or the
// prune's cause.
func (b Beginning) Why() string {
	if b.Pruned == nil {
		return "recording began then"
	}
	return b.Pruned.String()
}

// String is "2026-12-06T18:00:00Z (resourceVersion 1234)".
func (b Beginning) String() string {
	if b.Time.IsZero() {
		return fmt.Sprintf("resourceVersion %d", b.RV)
	}
	return fmt.Sprintf("%s (resourceVersion %d)", b.Time.UTC().Format(time.RFC3339), b.RV)
}

// Begins returns where the record of res begins, or the whole record's
// when res is "" (its oldest write kept); ErrNotRecorded when there is
// none.
func (s *sqlStore) Begins(ctx context.Context, res string) (Beginning, error) {
	q := s.conn()
	var b Beginning
	if res == "" {
		var ms int64
		err := q.QueryRowContext(ctx, `SELECT rv, time FROM marks ORDER BY time, rv LIMIT 1`).Scan(&b.RV, &ms)
		if errors.Is(err, sql.ErrNoRows) {
			return Beginning{}, fmt.Errorf("the history %s: %w", s.location, ErrNotRecorded)
		}
		if err != nil {
			return Beginning{}, s.readError("", err)
		}
		b.Time = fromMillis(ms)
	} else {
		id, err := s.resourceID(ctx, q, res)
		if err != nil {
			return Beginning{}, err
		}
		if err := q.QueryRowContext(ctx, `SELECT oldest FROM resources WHERE id = ?`, id).Scan(&b.RV); err != nil {
			return Beginning{}, s.readError(res, err)
		}
	}
	if err := s.beginning(ctx, q, &b, res == ""); err != nil {
		return Beginning{}, s.readError(res, err)
	}
	return b, nil
}

// beginning fills in b's time (unless known) and why it begins at b.RV:
// a prune whose cut is at or after it (pruned_rv) moved it there.
func (s *sqlStore) beginning(ctx context.Context, q querier, b *Beginning, timed bool) error {
	if !timed {
		var ms int64
		err := q.QueryRowContext(ctx, `SELECT time FROM marks WHERE rv >= ? ORDER BY rv LIMIT 1`, b.RV).Scan(&ms)
		switch {
		case err == nil:
			b.Time = fromMillis(ms)
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
	}
	var cut, cause sql.NullString // NULL: never pruned
	err := q.QueryRowContext(ctx, `SELECT (SELECT value FROM meta WHERE key = 'pruned_rv'), (SELECT value FROM meta WHERE key = 'pruned_cause')`).Scan(&cut, &cause)
	if err != nil {
		return err
	}
	rv, err := strconv.ParseUint(cut.String, 10, 64)
	if c, ok := parseCause(cause.String); ok && err == nil && b.RV <= rv {
		b.Pruned = &c
	}
	return nil
}

// markPruned keeps a prune's cut and cause.
func markPruned(ctx context.Context, q querier, cut uint64, c Cause) error {
	_, err := q.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('pruned_rv', ?), ('pruned_cause', ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, strconv.FormatUint(cut, 10), c.encode())
	return err
}

// beforeError is the *BeforeError of a query before b.RV: where the
// record (of a resource, or the whole) begins, and why.
func (s *sqlStore) beforeError(ctx context.Context, q querier, b Beginning, timed bool) error {
	if err := s.beginning(ctx, q, &b, timed); err != nil {
		return err
	}
	return &BeforeError{Oldest: b.RV, Time: b.Time, Pruned: b.Pruned}
}
