package history

import (
	"context"
	"database/sql"
	"testing"
)

// TestPreparedStatements: a transaction's queries are prepared for the
// store after it, the next transactions run them as prepared, and with a
// pool of one connection (which preparing during a transaction would wait
// for forever) writes go on.
func TestPreparedStatements(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	s.db.SetMaxOpenConns(1)
	res := "configmaps.v1."
	if _, err := s.Begin(ctx, res, 1); err != nil {
		t.Fatal(err)
	}
	insertOne := insertHead + revisionRow + insertUpsert
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
}
