package history

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history/internal/codec"
)

// TestWriteBefore: a revision is encoded against the JSON its writer had
// of the revision before (Revision.Before) only when that is what the
// store wrote last, whatever the writer says (else the head is read):
// each object's state then reads back as written, on each engine, with
// the heads kept in memory dropped so that only their sums are left.
func TestWriteBefore(t *testing.T) {
	ctx := context.Background()
	onEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		h := headsOf(t, s)
		const res = "configmaps.v1."
		if _, err := s.Begin(ctx, res, 1); err != nil {
			t.Fatal(err)
		}
		write := func(revs ...Revision) {
			t.Helper()
			if err := s.Write(ctx, res, Batch{RV: revs[len(revs)-1].RV, Revisions: revs}); err != nil {
				t.Fatal(err)
			}
			h.mu.Lock()
			clear(h.m) // as if other objects had pushed them out
			h.mu.Unlock()
		}
		write(rev("a", 2, Added, "a1"), rev("b", 3, Added, "b1"), rev("c", 4, Added, "c1"))
		tests := []struct {
			name   string
			before []byte
		}{
			{"a: the revision before", cm("a", 2, "a1")},
			{"b: a stale one", cm("b", 1, "an older value, longer")},
			{"c: none", nil},
		}
		var revs []Revision
		for i, tc := range tests {
			r := rev(tc.name[:1], uint64(5+i), Modified, tc.name[:1]+"2")
			r.Before = tc.before
			revs = append(revs, r)
		}
		write(revs...)
		write(rev("a", 8, Modified, "a3")) // a delta of a delta of a keyframe
		got, err := s.StateAt(ctx, res, 8)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string][]byte{"a": cm("a", 8, "a3"), "b": cm("b", 6, "b2"), "c": cm("c", 7, "c2")}
		for _, r := range got {
			if string(r.Object) != string(want[r.Name]) {
				t.Errorf("%s at 8: %s, want %s", r.Name, r.Object, want[r.Name])
			}
		}
		if len(got) != len(want) {
			t.Errorf("state at 8: %s", names(got))
		}
		q := sqlOf(t, s).conn()
		for rv, delta := range map[uint64]bool{5: true, 6: true, 7: true} { // a, b, c: b's head read
			var base uint64
			if err := q.QueryRowContext(ctx, `SELECT base FROM revisions WHERE rv = ?`, rv).Scan(&base); err != nil {
				t.Fatal(err)
			}
			if (base != 0) != delta {
				t.Errorf("the revision at %d: base %d, want a delta %t", rv, base, delta)
			}
		}
	})
}

// headsOf is the chain heads of an engine's store.
func headsOf(t *testing.T, s Record) *heads { return sqlOf(t, s).heads }

// sqlOf is an engine's store as both engines share it.
func sqlOf(t *testing.T, s Record) *sqlStore {
	switch s := s.(type) {
	case *SQLite:
		return &s.sqlStore
	case *Postgres:
		return &s.sqlStore
	}
	t.Fatalf("a store of type %T", s)
	return nil
}

// TestHeadsGet: a head not kept is the JSON of the revision before when
// its sum is the head's; otherwise it is read.
func TestHeadsGet(t *testing.T) {
	h := newHeads()
	key := objectKey{1, "default", "a"}
	doc := []byte(`{"v":1}`)
	h.put(key, &codec.Head{Frame: 3, Depth: 2, JSON: doc}, true)
	clear(h.m)
	tests := []struct {
		name   string
		key    objectKey
		before []byte
		ok     bool // the head, with before as its JSON; else a read
	}{
		{"the head's JSON", key, []byte(`{"v":1}`), true},
		{"another JSON", key, []byte(`{"v":2}`), false},
		{"no JSON", key, nil, false},
		{"an object not written", objectKey{1, "default", "b"}, doc, false},
	}
	for _, tc := range tests {
		head, ok := h.get(tc.key, tc.before)
		if ok != tc.ok || ok && (head.Frame != 3 || head.Depth != 2 || string(head.JSON) != string(doc)) {
			t.Errorf("%s: get = %+v, %t; want ok %t", tc.name, head, ok, tc.ok)
		}
	}
	h.put(key, nil, false) // no revision: no sum left
	clear(h.m)
	if head, ok := h.get(key, doc); ok {
		t.Errorf("the head of an object without revision: %+v", head)
	}
}

// TestFlushFor: a row waits in its statement until a read of its own
// object's revisions needs it, not another object's.
func TestFlushFor(t *testing.T) {
	ctx := context.Background()
	s := openAt(filepath.Join(t.TempDir(), "h.db"))(t)
	if _, err := s.Begin(ctx, "configmaps.v1.", 1); err != nil {
		t.Fatal(err)
	}
	ss := sqlOf(t, s)
	id, err := ss.resourceID(ctx, ss.conn(), "configmaps.v1.")
	if err != nil {
		t.Fatal(err)
	}
	rows := insertRows{q: ss.conn()}
	a, b := objectKey{id, "default", "a"}, objectKey{id, "default", "b"}
	blob, _, _ := codec.Encode(nil, 2, cm("a", 2, "a1"))
	if err := rows.add(ctx, a, 2, id, "default", "a", 2, int64(0), Added, "", 0, blob, nil, Unclassified); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key  objectKey
		head bool // a's row written, and read
	}{{b, false}, {a, true}} {
		if err := rows.flushFor(ctx, tc.key); err != nil {
			t.Fatal(err)
		}
		head, err := readHead(ctx, ss.conn(), a)
		if err != nil || (head != nil) != tc.head {
			t.Errorf("after flushFor(%s): a's head %+v, %v; want one %t", tc.key.name, head, err, tc.head)
		}
	}
}

// TestSavedHeads: a writer's Close saves its heads' sums and the next
// writer takes them, so that a change given with the JSON before it is
// written without reading its object's chain; a writer that ended without
// Close (a SIGKILL) left none, and a saved row that does not decode is
// dropped.
func TestSavedHeads(t *testing.T) {
	ctx := context.Background()
	const res = "configmaps.v1."
	onEachEngine(t, func(t *testing.T, open opener) {
		first := open(t)
		if _, err := first.Begin(ctx, res, 1); err != nil {
			t.Fatal(err)
		}
		if err := first.Write(ctx, res, Batch{RV: 3, Revisions: []Revision{rev("a", 2, Added, "a1"), rev("b", 3, Added, "b1")}}); err != nil {
			t.Fatal(err)
		}
		if err := first.Close(); err != nil {
			t.Fatal(err)
		}
		second := open(t)
		if n := len(headsOf(t, second).sums); n != 2 {
			t.Fatalf("sums taken: %d, want 2", n)
		}
		var left int
		if err := sqlOf(t, second).conn().QueryRowContext(ctx, `SELECT count(*) FROM heads`).Scan(&left); err != nil || left != 0 {
			t.Fatalf("heads left in the table: %d (%v), want 0", left, err)
		}
		a := rev("a", 4, Modified, "a2")
		a.Before = cm("a", 2, "a1")
		b := rev("b", 5, Modified, "b2")
		b.Before = cm("b", 1, "not what was recorded")
		if err := second.Write(ctx, res, Batch{RV: 5, Revisions: []Revision{a, b}}); err != nil {
			t.Fatal(err)
		}
		if n := headsOf(t, second).reads.Load(); n != 1 {
			t.Errorf("chains read: %d, want 1 (b's)", n)
		}
		got, err := second.StateAt(ctx, res, 5)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string][]byte{"a": cm("a", 4, "a2"), "b": cm("b", 5, "b2")}
		for _, r := range got {
			if string(r.Object) != string(want[r.Name]) {
				t.Errorf("%s at 5: %s, want %s", r.Name, r.Object, want[r.Name])
			}
		}
		killed := open(t) // while second runs: second took the sums, none are left
		if n := len(headsOf(t, killed).sums); n != 0 {
			t.Errorf("sums taken after a writer that did not close: %d, want 0", n)
		}
		if _, err := sqlOf(t, second).conn().ExecContext(ctx, `INSERT INTO heads (resource, rv, data) SELECT id, latest, ? FROM resources`, []byte("not s2")); err != nil {
			t.Fatal(err)
		}
		if n := len(headsOf(t, open(t)).sums); n != 0 {
			t.Errorf("sums taken from a row that does not decode: %d, want 0", n)
		}
		if err := second.Close(); err != nil { // saves a's and b's sums
			t.Fatal(err)
		}
		// another writer (an older kubectl-reflect) records on without taking them
		if _, err := sqlOf(t, killed).conn().ExecContext(ctx, `UPDATE resources SET latest = latest + 1`); err != nil {
			t.Fatal(err)
		}
		if n := len(headsOf(t, open(t)).sums); n != 0 {
			t.Errorf("sums taken after the record moved on: %d, want 0", n)
		}
		// a heads' table of another shape is made anew
		for _, stmt := range []string{`DROP TABLE heads`, `CREATE TABLE heads (resource BIGINT PRIMARY KEY, data BYTEA NOT NULL)`} {
			if _, err := sqlOf(t, killed).conn().ExecContext(ctx, stmt); err != nil {
				t.Fatal(err)
			}
		}
		reopened := open(t)
		if err := reopened.Write(ctx, res, Batch{RV: 7, Revisions: []Revision{rev("c", 7, Added, "c1")}}); err != nil {
			t.Fatal(err)
		}
		if err := reopened.Close(); err != nil {
			t.Fatalf("closing a store that found a heads' table of another shape: %v", err)
		}
		if n := len(headsOf(t, open(t)).sums); n != 1 { // c's: the ones dropped are read when needed
			t.Errorf("sums taken after a heads' table of another shape: %d, want 1", n)
		}
	})
}

// TestWriteKeepsNoInput: a store keeps no reference to what a batch hands
// it (a recorder reuses that memory once Write returns): revisions
// written, their input then overwritten, read back as written, and the
// next revisions, with and without Revision.Before, encode against the
// right heads without reading a chain back.
func TestWriteKeepsNoInput(t *testing.T) {
	ctx := context.Background()
	onEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		const res = "configmaps.v1."
		if _, err := s.Begin(ctx, res, 1); err != nil {
			t.Fatal(err)
		}
		write := func(revs ...Revision) {
			t.Helper()
			if err := s.Write(ctx, res, Batch{RV: revs[len(revs)-1].RV, Revisions: revs}); err != nil {
				t.Fatal(err)
			}
			for _, r := range revs {
				scribble(r.Object)
				scribble(r.Before)
			}
		}
		with := func(r Revision, before []byte) Revision { r.Before = before; return r }
		write(rev("a", 2, Added, "a1"), rev("b", 3, Added, "b1"))
		write(with(rev("a", 4, Modified, "a2"), cm("a", 2, "a1")), rev("b", 5, Modified, "b2"))
		write(with(rev("a", 6, Modified, "a3"), cm("a", 4, "a2")), with(rev("b", 7, Modified, "b3"), cm("b", 5, "b2")))
		if n := headsOf(t, s).reads.Load(); n != 2 {
			t.Errorf("chains read: %d, want 2 (each object's first, of no revision)", n)
		}
		q := sqlOf(t, s).conn()
		for rv := uint64(4); rv <= 7; rv++ {
			var base uint64
			if err := q.QueryRowContext(ctx, `SELECT base FROM revisions WHERE rv = ?`, rv).Scan(&base); err != nil || base == 0 {
				t.Errorf("the revision at %d: base %d (%v), want a delta", rv, base, err)
			}
		}
		for rv, want := range map[uint64]map[string][]byte{
			3: {"a": cm("a", 2, "a1"), "b": cm("b", 3, "b1")},
			5: {"a": cm("a", 4, "a2"), "b": cm("b", 5, "b2")},
			7: {"a": cm("a", 6, "a3"), "b": cm("b", 7, "b3")},
		} {
			got, err := s.StateAt(ctx, res, rv)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range got {
				if string(r.Object) != string(want[r.Name]) {
					t.Errorf("%s at %d: %s, want %s", r.Name, rv, r.Object, want[r.Name])
				}
			}
			if len(got) != len(want) {
				t.Errorf("state at %d: %s", rv, names(got))
			}
		}
	})
}

// scribble overwrites b, as a writer reusing its memory would.
func scribble(b []byte) {
	for i := range b {
		b[i] = 'x'
	}
}
