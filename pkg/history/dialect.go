package history

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"sync"
)

// dialect is what differs between the databases a sqlStore runs on. The
// queries are written once, with ? placeholders and SQL both engines
// read (upserts with ON CONFLICT, no scalar max); a dialect binds the
// placeholders, keeps the schema, and writes the one query shape they do
// not share: each object's latest revision.
type dialect struct {
	name string
	// schema makes a new history.
	schema []string
	// countTables counts the tables of the database (or PostgreSQL schema)
	// a history is opened in: none is a new one.
	countTables string
	// blob is the type of a column of bytes.
	blob string
	// numbered: placeholders are $1, $2, ... (PostgreSQL), not ?.
	numbered bool
	// prepare: each query a transaction runs is prepared once (stmtCache).
	prepare bool
	// distinctOn: "the latest revision of each object" is SELECT DISTINCT
	// ON (PostgreSQL); SQLite's is GROUP BY with max(rv), whose other
	// columns are the max row's.
	distinctOn bool

	bound sync.Map // query -> the query with numbered placeholders
}

// bind returns query with the dialect's placeholders.
func (d *dialect) bind(query string) string {
	if !d.numbered {
		return query
	}
	if b, ok := d.bound.Load(query); ok {
		return b.(string)
	}
	var (
		b strings.Builder
		n int
	)
	for _, c := range []byte(query) {
		if c != '?' {
			b.WriteByte(c)
			continue
		}
		n++
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(n))
	}
	d.bound.Store(query, b.String())
	return b.String()
}

// latestPer is the query of each object's latest revision of a resource
// among those where filters: namespace, name, rv, then the columns of
// rest (", time, op" say).
func (d *dialect) latestPer(rest, where string) string {
	if d.distinctOn {
		return `SELECT DISTINCT ON (namespace, name) namespace, name, rv` + rest + ` FROM revisions WHERE ` + where + ` ORDER BY namespace, name, rv DESC`
	}
	return `SELECT namespace, name, max(rv)` + rest + ` FROM revisions WHERE ` + where + ` GROUP BY namespace, name`
}

// on returns q with the dialect's placeholders.
func (d *dialect) on(q querier) querier {
	if !d.numbered {
		return q
	}
	return boundQuerier{q, d}
}

// querier is a *sql.DB, a *sql.Tx or a stmtCache.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// boundQuerier binds each query's placeholders before running it.
type boundQuerier struct {
	q querier
	d *dialect
}

func (b boundQuerier) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return b.q.QueryRowContext(ctx, b.d.bind(query), args...)
}

func (b boundQuerier) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return b.q.QueryContext(ctx, b.d.bind(query), args...)
}

func (b boundQuerier) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return b.q.ExecContext(ctx, b.d.bind(query), args...)
}
