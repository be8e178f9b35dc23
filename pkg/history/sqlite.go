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

	_ "modernc.org/sqlite" // the "sqlite" driver: SQLite in pure Go, no cgo
)

// sqliteHeader starts every SQLite database file.
const sqliteHeader = "SQLite format 3\x00"

// SQLite is a Record in one SQLite file (modernc.org/sqlite), in WAL mode:
// readers (get --at, history, another process) read while the daemon
// writes, and a batch is committed or not after a crash, SIGKILL included.
type SQLite struct {
	sqlStore
}

// OpenOptions say how to open a history.
type OpenOptions struct {
	// ReadOnly opens an existing history for queries; it is an error when
	// there is none.
	ReadOnly bool
}

// walSizeLimit is what the write-ahead log keeps of its file once SQLite
// has copied it back into the database (its journal_size_limit): the
// 1,000 pages of 4 KiB of its automatic checkpoint. A larger transaction
// (the history's checkpoint of a whole kind is one write of the kind's
// compressed state) grows the WAL beyond it, and SQLite truncates it back
// at the next write rather than keep the largest size it ever reached
// beside the database for as long as the daemon runs.
const walSizeLimit = 4 << 20

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
	q.Add("_pragma", "mmap_size(1073741824)") // pages read as memory, not one pread each: a checkpoint is many pages
	q.Add("_pragma", "temp_store(MEMORY)")    // statement journals (an upsert of many rows keeps one) in memory, not a file's writes
	q.Add("_txlock", "immediate")
	if opts.ReadOnly {
		q.Add("mode", "ro")
	} else {
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(NORMAL)")
		q.Add("_pragma", fmt.Sprintf("journal_size_limit(%d)", walSizeLimit))
	}
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("opening the history %s: %w", path, err)
	}
	s := &SQLite{newSQLStore(db, path, sqliteDialect)}
	if err := s.open(ctx, opts.ReadOnly); err != nil {
		db.Close()
		return nil, err
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

// Check reads the whole file (PRAGMA quick_check), for a daemon that is
// about to write to it: a damaged file is found before it is written to.
func (s *SQLite) Check(ctx context.Context) error {
	var res string
	if err := s.db.QueryRowContext(ctx, `PRAGMA quick_check`).Scan(&res); err != nil {
		return fmt.Errorf("checking the history %s: %w", s.location, err)
	}
	if res != "ok" {
		return fmt.Errorf("the history %s is damaged: %s", s.location, res)
	}
	return nil
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
		if err = s.Prune(ctx, fromMillis(ms), Cause{MaxSize: limit}); err != nil {
			break
		}
		var now int64
		if now, err = s.usedBytes(ctx); err == nil && now >= used {
			return now, nil // nothing more to free
		}
		used = now
	}
	if err != nil {
		return used, fmt.Errorf("shrinking the history %s: %w", s.location, err)
	}
	return used, nil
}

// Size returns what the database's pages in use take (what Shrink
// bounds) and the file's size (its pages, free ones included; the WAL
// aside).
func (s *SQLite) Size(ctx context.Context) (used, file int64, err error) {
	var pages, size int64
	if err := s.db.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
		return 0, 0, s.readError("", err)
	}
	if err := s.db.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&size); err != nil {
		return 0, 0, s.readError("", err)
	}
	if used, err = s.usedBytes(ctx); err != nil {
		return 0, 0, s.readError("", err)
	}
	return used, pages * size, nil
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
