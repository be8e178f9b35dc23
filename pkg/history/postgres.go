package history

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// Postgres is a Record in a PostgreSQL database (jackc/pgx), for a daemon
// shared by a team or run in the cluster: the tables SQLite's file holds,
// in the database (and schema: search_path) the URL names. One database
// or schema per cluster: resourceVersions of two clusters do not compare.
type Postgres struct {
	sqlStore
}

// IsPostgres says whether location names a PostgreSQL database (a
// postgres:// or postgresql:// URL) rather than a file.
func IsPostgres(location string) bool {
	return strings.HasPrefix(location, "postgres://") || strings.HasPrefix(location, "postgresql://")
}

// OpenPostgres opens the history in the PostgreSQL database dsn names (a
// URL; the password, when it holds none, from PGPASSWORD or ~/.pgpass),
// making its tables in an empty one unless ReadOnly. A database that
// holds other tables and no history is refused with ErrForeign.
func OpenPostgres(ctx context.Context, dsn string, opts OpenOptions) (*Postgres, error) {
	where := redact(dsn)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("opening the history %s: %w", where, err)
	}
	if opts.ReadOnly {
		cfg.RuntimeParams["default_transaction_read_only"] = "on"
	}
	db := stdlib.OpenDB(*cfg)
	s := &Postgres{newSQLStore(db, where, postgresDialect)}
	if err := s.open(ctx, opts.ReadOnly); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// redact is dsn without its password, for messages and for other
// processes (which take theirs from PGPASSWORD or ~/.pgpass).
func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "the PostgreSQL database given" // an unparsable URL may hold a password anywhere
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	q := u.Query()
	if q.Has("password") {
		q.Del("password")
		u.RawQuery = q.Encode()
	}
	return u.String()
}
