package history

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history/internal/codec"
)

// Mark is a revision read without its object: what a timeline draws.
type Mark struct {
	Namespace, Name string
	RV              uint64
	// Time and Since are the revision's (Revision.Time, Revision.Since).
	Time, Since time.Time
	Op          Op
	Class       Class
}

// MarkReader reads a record the way a timeline does: revisions without
// their objects, and only the objects it draws. The stores Open returns
// implement it.
type MarkReader interface {
	// Resources lists the resources the record holds ("pods.v1.").
	Resources(ctx context.Context) ([]string, error)
	// EachMark gives fn the revisions of res whose time is within
	// [since, until], in namespace ("": every one), ordered by object
	// (namespace, name) then resourceVersion, without decoding any
	// object: one object's revisions come one after another. A history
	// written before the class column gives Unclassified marks.
	EachMark(ctx context.Context, res, namespace string, since, until time.Time, fn func(*Mark) error) error
	// EachWarning gives fn, in the same order, the revisions of res (an
	// Events resource) within [since, until] classified WarningEvent,
	// their objects decoded; in a history written before the class
	// column, every revision (fn tells a Warning by its object).
	EachWarning(ctx context.Context, res, namespace string, since, until time.Time, fn func(*Revision) error) error
	// RevisionAt returns an object's latest revision at or before rv,
	// its object decoded (ErrNotRecorded when none is).
	RevisionAt(ctx context.Context, res, namespace, name string, rv uint64) (Revision, error)
}

// withClasses adds the class column to the revisions of a history written
// before it, when writable, and says whether the history has it.
func (s *sqlStore) withClasses(ctx context.Context, readOnly bool) error {
	has := func() bool {
		rows, err := s.db.QueryContext(ctx, `SELECT class FROM revisions WHERE 1 = 0`)
		if err != nil {
			return false
		}
		rows.Close()
		return true
	}
	s.classes = has()
	if s.classes || readOnly {
		return nil
	}
	if _, err := s.db.ExecContext(ctx, `ALTER TABLE revisions ADD COLUMN class SMALLINT`); err != nil {
		return fmt.Errorf("adding the class column: %w", err)
	}
	s.classes = true
	return nil
}

// classOf is the class of r, written against head (the object's chain
// head before it, nil when none).
func classOf(head *codec.Head, r *Revision) Class {
	if r.Class != Unclassified {
		return r.Class
	}
	var before []byte
	if head != nil && r.Op == Modified {
		before = head.JSON
	} else if !bytes.Contains(r.Object, []byte(`"Warning"`)) {
		return Unclassified
	}
	return Classify(before, r.Object)
}

// scanning runs f on a connection of its own that reads pages rather
// than maps them (SQLite's mmap_size 0): a timeline reads most pages of
// a resource once, and mapped they would all stay resident (the first
// screen of 24 h of 3,000 pods, a 75 MB file: a peak RSS of 159 MB
// mapped, 88 MB read; timeline's BenchmarkFirstScreen3000).
func (s *sqlStore) scanning(ctx context.Context, f func(q querier) error) error {
	if s.dialect != sqliteDialect {
		return f(s.conn())
	}
	c, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, `PRAGMA mmap_size = 0`); err != nil {
		return err
	}
	defer c.ExecContext(context.WithoutCancel(ctx), `PRAGMA mmap_size = 1073741824`) // as OpenSQLite opens it, for the pool's next user
	return f(c)
}

// Resources implements MarkReader.
func (s *sqlStore) Resources(ctx context.Context) ([]string, error) {
	rows, err := s.conn().QueryContext(ctx, `SELECT name FROM resources ORDER BY name`)
	if err != nil {
		return nil, s.readError("", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, s.readError("", err)
		}
		out = append(out, name)
	}
	return out, rows.Err()
}

// marksWhere is the condition of EachMark's and EachWarning's rows, and
// its arguments.
func marksWhere(id int64, namespace string, since, until time.Time) (string, []any) {
	where, args := `resource = ? AND time >= ? AND time <= ?`, []any{id, millis(since), millis(until)}
	if namespace != "" {
		where, args = `resource = ? AND namespace = ? AND time >= ? AND time <= ?`, []any{id, namespace, millis(since), millis(until)}
	}
	return where, args
}

// EachMark implements MarkReader.
func (s *sqlStore) EachMark(ctx context.Context, res, namespace string, since, until time.Time, fn func(*Mark) error) error {
	id, err := s.resourceID(ctx, s.conn(), res)
	if err != nil {
		return err
	}
	dated, err := s.datedOf(ctx, id)
	if err != nil {
		return s.readError(res, err)
	}
	class := "class"
	if !s.classes {
		class = "0"
	}
	where, args := marksWhere(id, namespace, since, until)
	return s.scanning(ctx, func(q querier) error {
		rows, err := q.QueryContext(ctx, `SELECT namespace, name, rv, time, op, coalesce(`+class+`, 0) FROM revisions WHERE `+where+` ORDER BY namespace, name, rv`, args...)
		if err != nil {
			return s.readError(res, err)
		}
		defer rows.Close()
		var m Mark
		for rows.Next() {
			var ms int64
			if err := rows.Scan(&m.Namespace, &m.Name, &m.RV, &ms, &m.Op, &m.Class); err != nil {
				return s.readError(res, err)
			}
			m.Time, m.Since = fromMillis(ms), time.Time{}
			if since, ok := dated[datedKey{m.Namespace, m.Name, m.RV}]; ok {
				m.Since = fromMillis(since)
			}
			if err := fn(&m); err != nil {
				return err
			}
		}
		if err := rows.Err(); err != nil {
			return s.readError(res, err)
		}
		return nil
	})
}

type datedKey struct {
	namespace, name string
	rv              uint64
}

// datedOf reads the windows of resource id's revisions seen late (few:
// those a recorder caught up on after a restart).
func (s *sqlStore) datedOf(ctx context.Context, id int64) (map[datedKey]int64, error) {
	out := map[datedKey]int64{}
	if !s.dating {
		return out, nil
	}
	rows, err := s.conn().QueryContext(ctx, `SELECT namespace, name, rv, since FROM dated WHERE resource = ?`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			k  datedKey
			ms int64
		)
		if err := rows.Scan(&k.namespace, &k.name, &k.rv, &ms); err != nil {
			return nil, err
		}
		out[k] = ms
	}
	return out, rows.Err()
}

// EachWarning implements MarkReader.
func (s *sqlStore) EachWarning(ctx context.Context, res, namespace string, since, until time.Time, fn func(*Revision) error) error {
	id, err := s.resourceID(ctx, s.conn(), res)
	if err != nil {
		return err
	}
	where, args := marksWhere(id, namespace, since, until)
	if s.classes {
		where += ` AND (class = ? OR class IS NULL)`
		args = append(args, WarningEvent)
	}
	return s.scanning(ctx, func(q querier) error {
		revs, deltas, err := scanRevisions(q.QueryContext(ctx, `SELECT namespace, name, rv, time, op, manager, base, object, cells
			FROM revisions WHERE `+where+` ORDER BY namespace, name, rv`, args...))
		if err == nil {
			err = undeltaInOrder(ctx, q, id, revs, deltas)
		}
		if err != nil {
			return s.readError(res, err)
		}
		for i := range revs {
			if err := fn(&revs[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// RevisionAt implements MarkReader.
func (s *sqlStore) RevisionAt(ctx context.Context, res, namespace, name string, rv uint64) (Revision, error) {
	id, err := s.resourceID(ctx, s.conn(), res)
	if err != nil {
		return Revision{}, err
	}
	var out Revision
	err = s.inTx(ctx, true, func(q querier) error {
		row := q.QueryRowContext(ctx, `SELECT namespace, name, rv, time, op, manager, base, object, cells
			FROM revisions WHERE resource = ? AND namespace = ? AND name = ? AND rv <= ? ORDER BY rv DESC LIMIT 1`, id, namespace, name, rv)
		r, base, err := scanRevision(row)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return fmt.Errorf("%s %s/%s at resourceVersion %d: %w", res, namespace, name, rv, ErrNotRecorded)
		case err != nil:
			return s.readError(res, err)
		case base != 0:
			if r.Object, _, err = chain(ctx, q, objectKey{id, namespace, name}, base, r.RV); err != nil {
				return s.readError(res, err)
			}
		}
		out = r
		return nil
	})
	return out, err
}
