package history

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" driver: SQLite in pure Go, no cgo
)

// sqliteHeader starts every SQLite database file.
const sqliteHeader = "SQLite format 3\x00"

// SQLite is a Store in one SQLite file (modernc.org/sqlite), in WAL mode:
// readers (get --at, history, another process) read while the daemon
// writes, and a batch is committed or not after a crash, SIGKILL included.
type SQLite struct {
	db   *sql.DB
	path string
	*heads
	mu  sync.Mutex       // guards ids
	ids map[string]int64 // resource name -> id
}

// OpenOptions say how to open a history.
type OpenOptions struct {
	// ReadOnly opens an existing history for queries; it is an error when
	// there is none.
	ReadOnly bool
}

// OpenSQLite opens the history in the file at path, creating it (mode
// 0600, its directory 0700) unless ReadOnly. A file that is not a
// kubectl-reflect history is refused with ErrForeign, one that is
// damaged with the database's error.
func OpenSQLite(ctx context.Context, path string, opts OpenOptions) (*SQLite, error) {
	if err := prepareFile(path, opts.ReadOnly); err != nil {
		return nil, err
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_txlock", "immediate")
	if opts.ReadOnly {
		q.Add("mode", "ro")
	} else {
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(NORMAL)")
	}
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("opening the history %s: %w", path, err)
	}
	s := &SQLite{db: db, path: path, heads: newHeads(), ids: map[string]int64{}}
	if err := s.checkSchema(ctx, opts.ReadOnly); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening the history %s: %w", path, err)
	}
	return s, nil
}

// prepareFile makes the file at path (and its directory) if it may, and
// refuses one that is not an SQLite database.
func prepareFile(path string, readOnly bool) error {
	f, err := os.Open(path)
	switch {
	case errors.Is(err, os.ErrNotExist) && readOnly:
		return fmt.Errorf("no history at %s (serve --record writes one)", path)
	case errors.Is(err, os.ErrNotExist):
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return fmt.Errorf("making the history's directory: %w", err)
		}
		f, err = os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return fmt.Errorf("making the history %s: %w", path, err)
		}
		return f.Close()
	case err != nil:
		return fmt.Errorf("opening the history: %w", err)
	}
	defer f.Close()
	head := make([]byte, len(sqliteHeader))
	n, err := io.ReadFull(f, head)
	switch {
	case n == 0 && errors.Is(err, io.EOF):
		return nil // empty: a new database
	case err != nil || !bytes.Equal(head, []byte(sqliteHeader)):
		return fmt.Errorf("%s is %w: not an SQLite database", path, ErrForeign)
	}
	return nil
}

// checkSchema makes the schema in a new database and refuses another
// program's database or a newer format.
func (s *SQLite) checkSchema(ctx context.Context, readOnly bool) error {
	var tables int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master`).Scan(&tables); err != nil {
		return err
	}
	if tables == 0 && !readOnly {
		return s.create(ctx)
	}
	var name, version string
	err := s.db.QueryRowContext(ctx, `SELECT (SELECT value FROM meta WHERE key = 'format'), (SELECT value FROM meta WHERE key = 'version')`).Scan(&name, &version)
	if err != nil || name != formatName {
		return fmt.Errorf("%w: an SQLite database of another program", ErrForeign)
	}
	if version != formatVersion {
		return fmt.Errorf("%w: format version %s (this kubectl-reflect reads %s)", ErrForeign, version, formatVersion)
	}
	return nil
}

func (s *SQLite) create(ctx context.Context) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		for _, stmt := range schemaStatements {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("making the schema: %w", err)
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('format', ?), ('version', ?)`, formatName, formatVersion)
		return err
	})
}

// inTx runs f in a transaction, committed when f succeeds.
func (s *SQLite) inTx(ctx context.Context, f func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := f(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// Location implements Store.
func (s *SQLite) Location() string { return s.path }

// Close implements Store.
func (s *SQLite) Close() error { return s.db.Close() }

// Check reads the whole file (PRAGMA quick_check), for a daemon that is
// about to write to it: a damaged file is found before it is written to.
func (s *SQLite) Check(ctx context.Context) error {
	var res string
	if err := s.db.QueryRowContext(ctx, `PRAGMA quick_check`).Scan(&res); err != nil {
		return fmt.Errorf("checking the history %s: %w", s.path, err)
	}
	if res != "ok" {
		return fmt.Errorf("the history %s is damaged: %s", s.path, res)
	}
	return nil
}

// resourceID returns the id of res, or ErrNotRecorded.
func (s *SQLite) resourceID(ctx context.Context, q querier, res string) (int64, error) {
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

// querier is a *sql.DB or a *sql.Tx.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func millis(t time.Time) int64      { return t.UnixMilli() }
func fromMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }
