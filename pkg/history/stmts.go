package history

import (
	"context"
	"database/sql"
	"sync"
)

// stmtCache is a querier over a transaction that prepares each query once:
// SQLite spends more preparing a small query than running it, and a batch
// or a state runs the same few queries once per object (BenchmarkWriteBatch,
// BenchmarkStateAt). A query the store has prepared (preparedStmts) runs
// as the connection's statement: the recorder's transaction every 100 ms
// prepared its insert of 100 rows (a thousand placeholders) anew, 3.5 us
// per revision in BenchmarkWriteBatch.
type stmtCache struct {
	tx     *sql.Tx
	shared *preparedStmts
	stmts  map[string]*sql.Stmt
	fresh  []string // the queries prepared for tx alone, for the store to prepare after it
}

func newStmtCache(tx *sql.Tx, shared *preparedStmts) *stmtCache {
	return &stmtCache{tx: tx, shared: shared, stmts: map[string]*sql.Stmt{}}
}

func (c *stmtCache) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := c.stmts[query]; ok {
		return st, nil
	}
	var st *sql.Stmt
	if shared, ok := c.shared.get(query); ok {
		st = c.tx.StmtContext(ctx, shared) // the connection's own when it ran the query before
	} else {
		var err error
		if st, err = c.tx.PrepareContext(ctx, query); err != nil {
			return nil, err
		}
		c.fresh = append(c.fresh, query)
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

// close closes the transaction's statements (the transaction closes them
// too); the connection keeps its prepared ones.
func (c *stmtCache) close() {
	for _, st := range c.stmts {
		st.Close()
	}
}

// preparedStmts are a database's statements, each prepared once, after
// the transaction that first ran it (prepared on the database during a
// transaction, it would need a second connection, which a pool of one
// never frees, and could not see the tables the transaction made).
// database/sql then prepares a statement once on each connection it runs
// on, and a transaction's StmtContext uses the connection's. Only a store
// opened to write keeps them (sqlStore.inTx): a reader's process ends
// after a few transactions.
type preparedStmts struct {
	db    *sql.DB
	mu    sync.Mutex
	stmts map[string]*sql.Stmt
}

func newPreparedStmts(db *sql.DB) *preparedStmts {
	return &preparedStmts{db: db, stmts: map[string]*sql.Stmt{}}
}

func (p *preparedStmts) get(query string) (*sql.Stmt, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	st, ok := p.stmts[query]
	return st, ok
}

// add prepares the queries it does not have yet; one that fails to is
// left to each transaction.
func (p *preparedStmts) add(ctx context.Context, queries []string) {
	for _, query := range queries {
		if _, ok := p.get(query); ok {
			continue
		}
		st, err := p.db.PrepareContext(ctx, query)
		if err != nil {
			continue
		}
		p.mu.Lock()
		if _, ok := p.stmts[query]; ok {
			st.Close()
		} else {
			p.stmts[query] = st
		}
		p.mu.Unlock()
	}
}

// close closes the statements, before the database.
func (p *preparedStmts) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, st := range p.stmts {
		st.Close()
	}
	clear(p.stmts)
}
