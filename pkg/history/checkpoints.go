package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history/internal/codec"
)

// checkpointTable keeps checkpoints (checkpoint.go). It is made in a
// history of any age when opened to write: a history written before it
// existed reads as before, without one.
const checkpointTable = `CREATE TABLE IF NOT EXISTS checkpoints (
	resource BIGINT NOT NULL,
	rv BIGINT NOT NULL,
	part INTEGER NOT NULL,
	data %s NOT NULL,
	PRIMARY KEY (resource, rv, part)
)`

// withCheckpoints makes the checkpoints table when writable, and says
// whether the history has one.
func (s *sqlStore) withCheckpoints(ctx context.Context, readOnly bool) error {
	if !readOnly {
		if _, err := s.db.ExecContext(ctx, fmt.Sprintf(checkpointTable, s.dialect.blob)); err != nil {
			return fmt.Errorf("making the checkpoints' table: %w", err)
		}
	}
	var n int
	s.checkpoints = s.db.QueryRowContext(ctx, `SELECT count(*) FROM checkpoints WHERE resource = -1`).Scan(&n) == nil
	return nil
}

// Checkpointed reports whether res's record has a checkpoint (false for a
// resource never recorded).
func (s *sqlStore) Checkpointed(ctx context.Context, res string) (bool, error) {
	id, err := s.resourceID(ctx, s.conn(), res)
	if errors.Is(err, ErrNotRecorded) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	_, ok, err := s.nearestCheckpoint(ctx, s.conn(), id, 0) // any: each one is after 0
	return ok, err
}

// Checkpoint implements Record.
func (s *sqlStore) Checkpoint(ctx context.Context, res string) error {
	id, err := s.resourceID(ctx, s.conn(), res)
	if err != nil {
		return err
	}
	var (
		at    uint64
		parts codec.Parts
	)
	err = s.inTx(ctx, true, func(q querier) error {
		var newest sql.NullInt64
		if err := q.QueryRowContext(ctx, `SELECT r.latest, (SELECT max(rv) FROM checkpoints WHERE resource = r.id) FROM resources r WHERE r.id = ?`, id).Scan(&at, &newest); err != nil {
			return err
		}
		if newest.Valid && uint64(newest.Int64) == at {
			at = 0 // there is one already
			return nil
		}
		return s.stateEach(ctx, q, id, at, stream{workers: 1, reuse: true, fn: func(_ int, batch []Revision) error {
			for i := range batch {
				e := entryOf(&batch[i])
				parts.Add(&e)
			}
			return nil
		}})
	})
	if err != nil || at == 0 {
		return s.checkpointError(res, err)
	}
	parts.Flush()
	return s.checkpointError(res, s.inTx(ctx, false, func(q querier) error {
		var oldest uint64
		if err := q.QueryRowContext(ctx, `SELECT oldest FROM resources WHERE id = ?`, id).Scan(&oldest); err != nil || oldest > at {
			return err // pruned past it meanwhile: no checkpoint
		}
		// The older ones go first: their pages hold the new one (SQLite
		// reuses the pages a transaction freed), and the file does not
		// grow by a state at each checkpoint.
		if _, err := q.ExecContext(ctx, `DELETE FROM checkpoints WHERE resource = ?`, id); err != nil {
			return err
		}
		for i, p := range parts.Done {
			if _, err := q.ExecContext(ctx, `INSERT INTO checkpoints (resource, rv, part, data) VALUES (?, ?, ?, ?)`, id, at, i, p); err != nil {
				return err
			}
		}
		return nil
	}))
}

func (s *sqlStore) checkpointError(res string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("checkpointing the history of %s in %s: %w", res, s.location, err)
}

// nearestCheckpoint is the resourceVersion of resource id's checkpoint
// nearest to rv, before or after it; ok is false when there is none.
func (s *sqlStore) nearestCheckpoint(ctx context.Context, q querier, id int64, rv uint64) (uint64, bool, error) {
	if !s.checkpoints {
		return 0, false, nil
	}
	var best uint64
	found := false
	for _, query := range []string{
		`SELECT rv FROM checkpoints WHERE resource = ? AND rv <= ? ORDER BY rv DESC LIMIT 1`,
		`SELECT rv FROM checkpoints WHERE resource = ? AND rv > ? ORDER BY rv LIMIT 1`,
	} {
		var at uint64
		err := q.QueryRowContext(ctx, query, id, rv).Scan(&at)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return 0, false, err
		case !found || distance(at, rv) < distance(best, rv):
			best, found = at, true
		}
	}
	return best, found, nil
}

func distance(a, b uint64) uint64 { return max(a, b) - min(a, b) }

// revisionAt is an object's latest revision at or before rv, decoded;
// ok is false when it has none.
func revisionAt(ctx context.Context, q querier, k objectKey, rv uint64) (Revision, bool, error) {
	r, base, err := scanRevision(q.QueryRowContext(ctx, `SELECT namespace, name, rv, time, op, manager, base, object, cells
		FROM revisions WHERE resource = ? AND namespace = ? AND name = ? AND rv <= ? ORDER BY rv DESC LIMIT 1`, k.resource, k.namespace, k.name, rv))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return r, false, nil
	case err != nil:
		return r, false, err
	case base != 0 && r.Op != Deleted:
		r.Object, _, err = chain(ctx, q, k, base, r.RV)
	}
	return r, err == nil, err
}
