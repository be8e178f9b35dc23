package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"
)

// sqlStore is the Record over database/sql that SQLite and Postgres share:
// the same tables, the same queries (bound to each one's dialect), the
// same codec and chain heads.
type sqlStore struct {
	db       *sql.DB
	location string // for people: a path, a database's URL without its password
	dialect  *dialect
	*heads
	mu  sync.Mutex       // guards ids
	ids map[string]int64 // resource name -> id
	// checkpoints: the history has the checkpoints' table (checkpoints.go).
	checkpoints bool
	// dating: the history has the dating tables (dating.go).
	dating bool
	// classes: the revisions table has the class column (marks.go).
	classes bool
	// written: the history has the written table (usage.go).
	written bool
	// writable: opened to write; Close saves the heads' sums.
	writable bool
	// prepared: the statements of transactions (dialect.prepare).
	prepared *preparedStmts
}

func newSQLStore(db *sql.DB, location string, d *dialect) sqlStore {
	return sqlStore{db: db, location: location, dialect: d, heads: newHeads(), ids: map[string]int64{}, prepared: newPreparedStmts(db)}
}

// conn is the database, queried outside a transaction.
func (s *sqlStore) conn() querier { return s.dialect.on(s.db) }

// open checks the database's schema (checkSchema), and says what is wrong
// with it.
func (s *sqlStore) open(ctx context.Context, readOnly bool) error {
	err := s.checkSchema(ctx, readOnly)
	if err == nil {
		err = s.withCheckpoints(ctx, readOnly)
	}
	if err == nil {
		err = s.withDating(ctx, readOnly)
	}
	if err == nil {
		err = s.withClasses(ctx, readOnly)
	}
	if err == nil {
		err = s.withWritten(ctx, readOnly)
	}
	if err == nil && !readOnly {
		err = s.takeHeads(ctx)
		s.writable = err == nil
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errEmpty):
		return fmt.Errorf("no history at %s (serve --record writes one)", s.location)
	}
	return fmt.Errorf("opening the history %s: %w", s.location, err)
}

// errEmpty: a database opened to read holds no table.
var errEmpty = errors.New("empty")

// checkSchema makes the schema in a new database and refuses another
// program's database or a newer format.
func (s *sqlStore) checkSchema(ctx context.Context, readOnly bool) error {
	var tables int
	if err := s.db.QueryRowContext(ctx, s.dialect.countTables).Scan(&tables); err != nil {
		return err
	}
	switch {
	case tables == 0 && readOnly:
		return errEmpty
	case tables == 0:
		return s.create(ctx)
	}
	var name, version string
	err := s.db.QueryRowContext(ctx, `SELECT (SELECT value FROM meta WHERE key = 'format'), (SELECT value FROM meta WHERE key = 'version')`).Scan(&name, &version)
	if err != nil || name != formatName {
		return fmt.Errorf("%w: %s database of another program", ErrForeign, article(s.dialect.name))
	}
	if version != formatVersion {
		return fmt.Errorf("%w: format version %s (this kubectl-reflect reads %s)", ErrForeign, version, formatVersion)
	}
	return nil
}

func article(name string) string {
	if name == "SQLite" {
		return "an " + name
	}
	return "a " + name
}

func (s *sqlStore) create(ctx context.Context) error {
	return s.inTx(ctx, false, func(q querier) error {
		for _, stmt := range s.dialect.schema {
			if _, err := q.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("making the schema: %w", err)
			}
		}
		_, err := q.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('format', ?), ('version', ?)`, formatName, formatVersion)
		return err
	})
}

// inTx runs f in a transaction, committed when f succeeds; a read-only
// one reads one snapshot. f's querier prepares each query once where the
// dialect gains by it, and binds placeholders.
func (s *sqlStore) inTx(ctx context.Context, readOnly bool, f func(querier) error) error {
	opts := &sql.TxOptions{}
	if readOnly {
		opts = &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead}
	}
	tx, err := s.db.BeginTx(ctx, opts)
	if err != nil {
		return err
	}
	var q querier = tx
	var c *stmtCache
	if s.dialect.prepare {
		c = newStmtCache(tx, s.prepared)
		defer c.close()
		q = c
	}
	if err := f(s.dialect.on(q)); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if c != nil && len(c.fresh) > 0 && s.writable { // a store opened to read (get --at) runs a few transactions, then exits
		s.prepared.add(ctx, c.fresh)
	}
	return nil
}

// Location implements Record.
func (s *sqlStore) Location() string { return s.location }

// Close implements Record. A writer's also saves its heads' sums for the
// next one (savedheads.go): a failure to is only that writer's loss.
func (s *sqlStore) Close() error {
	var err error
	if s.writable {
		err, s.writable = s.saveHeads(), false
	}
	s.prepared.close()
	return errors.Join(err, s.db.Close())
}

// resourceID returns the id of res, or ErrNotRecorded.
func (s *sqlStore) resourceID(ctx context.Context, q querier, res string) (int64, error) {
	s.mu.Lock()
	id, ok := s.ids[res]
	s.mu.Unlock()
	if ok {
		return id, nil
	}
	err := q.QueryRowContext(ctx, `SELECT id FROM resources WHERE name = ?`, res).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("%s: %w", res, ErrNotRecorded)
	}
	if err != nil {
		return 0, err
	}
	s.mu.Lock()
	s.ids[res] = id
	s.mu.Unlock()
	return id, nil
}

// readError says which history failed to read.
func (s *sqlStore) readError(res string, err error) error {
	if res == "" {
		return fmt.Errorf("reading the history %s: %w", s.location, err)
	}
	return fmt.Errorf("reading the history of %s in %s: %w", res, s.location, err)
}

func millis(t time.Time) int64      { return t.UnixMilli() }
func fromMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }
