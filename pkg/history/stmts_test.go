package history

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
)

// TestPreparedStatements: a transaction's queries are prepared for the
// store after it, the next transactions run them as prepared, and with a
// pool of one connection (which preparing during a transaction would wait
// for forever) writes go on; a store opened to read prepares nothing
// beyond its transactions.
func TestPreparedStatements(t *testing.T) {
	ctx := context.Background()
	s, path := openTemp(t)
	s.db.SetMaxOpenConns(1)
	res := "configmaps.v1."
	if _, err := s.Begin(ctx, res, 1); err != nil {
		t.Fatal(err)
	}
	insertOne := insertQueries[0]
	var first *sql.Stmt
	for i, name := range []string{"a", "b", "c"} {
		rv := uint64(2 + i)
		if err := s.Write(ctx, res, Batch{RV: rv, Revisions: []Revision{rev(name, rv, Added, "x")}}); err != nil {
			t.Fatal(err)
		}
		st, ok := s.prepared.get(insertOne)
		if !ok {
			t.Fatalf("write %d: the insert of one row is not prepared for the store", i)
		}
		if i == 0 {
			first = st
		} else if st != first {
			t.Fatalf("write %d: the insert was prepared again", i)
		}
	}
	got, err := s.StateAt(ctx, res, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("state at 4: %s, want a, b and c", names(got))
	}

	// A store opened to read runs its queries in its transactions alone.
	r, err := OpenSQLite(ctx, path, OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got, err := r.StateAt(ctx, res, 4); err != nil || len(got) != 3 {
		t.Fatalf("read-only state at 4: %s, %v; want a, b and c", names(got), err)
	}
	r.prepared.mu.Lock()
	defer r.prepared.mu.Unlock()
	if n := len(r.prepared.stmts); n != 0 {
		t.Fatalf("a store opened to read prepared %d statements for later transactions, want none", n)
	}
}

// TestInsertSizes: batches of every size up to and past insertMany are
// written whole, in inserts of a few sizes only (powers of two), which the
// store prepares once each.
func TestInsertSizes(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	res := "configmaps.v1."
	if _, err := s.Begin(ctx, res, 1); err != nil {
		t.Fatal(err)
	}
	rv, want := uint64(1), 0
	for size := 1; size <= insertMany+3; size++ {
		b := Batch{}
		for range size {
			rv++
			b.Revisions = append(b.Revisions, rev(fmt.Sprintf("cm-%d", rv), rv, Added, "x"))
		}
		b.RV = rv
		if err := s.Write(ctx, res, b); err != nil {
			t.Fatal(err)
		}
		want += size
	}
	got, err := s.StateAt(ctx, res, rv)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != want {
		t.Fatalf("state at %d: %d objects, want %d", rv, len(got), want)
	}
	s.prepared.mu.Lock()
	defer s.prepared.mu.Unlock()
	inserts := 0
	for query := range s.prepared.stmts {
		if strings.HasPrefix(query, insertHead) {
			inserts++
		}
	}
	if inserts != len(insertQueries) {
		t.Fatalf("%d inserts prepared, want %d (one per power of two up to %d rows)", inserts, len(insertQueries), insertMany)
	}
}
