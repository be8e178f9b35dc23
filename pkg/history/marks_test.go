package history

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// warning is a core/v1 Warning Event about config map name.
func warning(name string, rv uint64) []byte {
	return fmt.Appendf(nil, `{"apiVersion":"v1","kind":"Event","metadata":{"name":"%s.w","namespace":"default","resourceVersion":"%d"},"involvedObject":{"kind":"ConfigMap","namespace":"default","name":%q},"type":"Warning","reason":"Bad","message":"m"}`, name, rv, name)
}

// labelled is config map a with a label, else as cm makes it.
func labelled(rv uint64, value string) []byte {
	return []byte(strings.Replace(string(cm("a", rv, value)), `"namespace":"default"`, `"namespace":"default","labels":{"x":"y"}`, 1))
}

// TestMarks: each revision's class is written with it (a data change is
// spec, a resourceVersion alone status, a label spec; a Warning Event
// warning) and EachMark reads it without objects, ordered by object;
// EachWarning decodes the Warnings; RevisionAt an object at a
// resourceVersion.
func TestMarks(t *testing.T) {
	ctx := context.Background()
	onEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		const res, events = "configmaps.v1.", "events.v1."
		for _, r := range []string{res, events} {
			if _, err := s.Begin(ctx, r, 1); err != nil {
				t.Fatal(err)
			}
		}
		status := rev("a", 4, Modified, "")
		status.Object = cm("a", 4, "2") // the resourceVersion alone moved: no spec, no status here
		writeAll(t, s, res, rev("a", 2, Added, "1"), rev("b", 3, Initial, "1"), rev("a", 3, Modified, "2"), status,
			Revision{Namespace: "default", Name: "a", RV: 5, Time: time.Now(), Op: Modified, Object: labelled(5, "2")}, rev("b", 6, Deleted, "1"))
		writeAll(t, s, events, Revision{Namespace: "default", Name: "a.w", RV: 7, Time: time.Now(), Op: Added, Object: warning("a", 7)})
		r := s.(MarkReader)
		var got []string
		err := r.EachMark(ctx, res, "", time.Now().Add(-time.Hour), time.Now().Add(time.Hour), func(m *Mark) error {
			got = append(got, fmt.Sprintf("%s@%d:%s/%s", m.Name, m.RV, m.Op, m.Class))
			return nil
		})
		want := "a@2:ADDED/unclassified a@3:MODIFIED/spec a@4:MODIFIED/status a@5:MODIFIED/spec b@3:INITIAL/unclassified b@6:DELETED/unclassified"
		if err != nil || strings.Join(got, " ") != want {
			t.Errorf("EachMark: %v, %v; want %s", got, err, want)
		}
		var warnings []string
		err = r.EachWarning(ctx, events, "default", time.Now().Add(-time.Hour), time.Now().Add(time.Hour), func(rv *Revision) error {
			warnings = append(warnings, fmt.Sprintf("%s@%d %t", rv.Name, rv.RV, strings.Contains(string(rv.Object), `"Warning"`)))
			return nil
		})
		if err != nil || strings.Join(warnings, " ") != "a.w@7 true" {
			t.Errorf("EachWarning: %v, %v", warnings, err)
		}
		at, err := r.RevisionAt(ctx, res, "default", "a", 4)
		if err != nil || at.RV != 4 || !strings.Contains(string(at.Object), `"resourceVersion":"4"`) {
			t.Errorf("RevisionAt a 4: %d %s, %v", at.RV, at.Object, err)
		}
		if _, err := r.RevisionAt(ctx, res, "default", "a", 1); !errors.Is(err, ErrNotRecorded) {
			t.Errorf("RevisionAt before a's first revision: %v, want ErrNotRecorded", err)
		}
		if names, err := r.Resources(ctx); err != nil || strings.Join(names, " ") != res+" "+events {
			t.Errorf("Resources: %v, %v", names, err)
		}
	})
}

func writeAll(t *testing.T, s Record, res string, revs ...Revision) {
	t.Helper()
	if err := s.Write(context.Background(), res, Batch{Revisions: revs, RV: revs[len(revs)-1].RV}); err != nil {
		t.Fatal(err)
	}
}

// TestMarksOfAnOlderHistory: a history written before the class column
// reads as unclassified opened to read, and gains the column opened to
// write.
func TestMarksOfAnOlderHistory(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "h.db")
	s := openAt(path)(t)
	const res = "configmaps.v1."
	if _, err := s.Begin(ctx, res, 1); err != nil {
		t.Fatal(err)
	}
	writeAll(t, s, res, rev("a", 2, Added, "1"), rev("a", 3, Modified, "2"))
	if _, err := sqlOf(t, s).db.ExecContext(ctx, `ALTER TABLE revisions DROP COLUMN class`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	classes := func(opts OpenOptions) string {
		s, err := Open(ctx, path, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		var got []string
		err = s.(MarkReader).EachMark(ctx, res, "", time.Now().Add(-time.Hour), time.Now().Add(time.Hour), func(m *Mark) error {
			got = append(got, m.Class.String())
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(got, " ")
	}
	if got := classes(OpenOptions{ReadOnly: true}); got != "unclassified unclassified" {
		t.Errorf("read-only: %s", got)
	}
	if got := classes(OpenOptions{}); got != "unclassified unclassified" {
		t.Errorf("opened to write: %s", got)
	}
	var n int
	if err := sqlOf(t, openAt(path)(t)).db.QueryRowContext(ctx, `SELECT count(class) FROM revisions`).Scan(&n); err != nil {
		t.Errorf("no class column after a writer opened it: %v", err)
	}
}
