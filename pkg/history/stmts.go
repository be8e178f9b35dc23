package history

import (
	"context"
	"database/sql"
)

// stmtCache is a querier over a transaction that prepares each query once:
// SQLite spends more preparing a small query than running it, and a batch
// or a state runs the same few queries once per object (BenchmarkWriteBatch,
// BenchmarkStateAt).
type stmtCache struct {
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
	err   error // a failed prepare, returned by the Row's Scan
}

func newStmtCache(tx *sql.Tx) *stmtCache { return &stmtCache{tx: tx, stmts: map[string]*sql.Stmt{}} }

func (c *stmtCache) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := c.stmts[query]; ok {
		return st, nil
	}
	st, err := c.tx.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.stmts[query] = st
	return st, nil
}

func (c *stmtCache) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := c.stmt(ctx, query)
	if err != nil {
		return c.tx.QueryRowContext(ctx, query, args...) // its Scan reports the same error
	}
	return st.QueryRowContext(ctx, args...)
}

func (c *stmtCache) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

func (c *stmtCache) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

// close closes the statements (the transaction closes them too).
func (c *stmtCache) close() {
	for _, st := range c.stmts {
		st.Close()
	}
}
