package history

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestSQLiteChanges: the changes between two resourceVersions come in
// resourceVersion order across objects, each decoded (deltas whose chain
// starts before the range included); a range from before the record or
// across a gap fails.
func TestChanges(t *testing.T) {
	ctx := context.Background()
	onEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		const res = "configmaps.v1."
		if _, err := s.Begin(ctx, res, 10); err != nil {
			t.Fatal(err)
		}
		long := strings.Repeat("x", 2000) // long enough for deltas
		rv := uint64(10)
		for i := range 6 {
			rv++
			b := Batch{RV: rv + 1, Revisions: []Revision{rev("a", rv, Modified, fmt.Sprint(long, i))}}
			if i == 0 {
				b.Revisions[0].Op = Added
			}
			rv++
			b.Revisions = append(b.Revisions, rev(fmt.Sprint("b", i), rv, Added, "b"))
			if err := s.Write(ctx, res, b); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Write(ctx, res, Batch{RV: 30, Revisions: []Revision{rev("a", 30, Deleted, fmt.Sprint(long, 5))}}); err != nil {
			t.Fatal(err)
		}
		got, err := s.Changes(ctx, res, 14, 30, 9)
		if err != nil {
			t.Fatal(err)
		}
		var ops []string
		for _, r := range got {
			ops = append(ops, fmt.Sprintf("%v %s@%d", r.Op, r.Name, r.RV))
			if r.Name == "a" && r.Op != Deleted && string(r.Object) != string(cm("a", r.RV, fmt.Sprint(long, (r.RV-11)/2))) {
				t.Errorf("a at %d decoded as %.80s", r.RV, r.Object)
			}
		}
		want := "MODIFIED a@15 ADDED b2@16 MODIFIED a@17 ADDED b3@18 MODIFIED a@19 ADDED b4@20 MODIFIED a@21 ADDED b5@22 DELETED a@30"
		if strings.Join(ops, " ") != want {
			t.Errorf("Changes(14, 30):\n got %s\nwant %s", strings.Join(ops, " "), want)
		}

		if _, err := s.Changes(ctx, res, 14, 30, 8); !errors.Is(err, ErrTooMany) {
			t.Errorf("Changes(14, 30) of at most 8: %v, want ErrTooMany", err)
		}
		if _, err := s.Changes(ctx, res, 5, 30, 0); !errors.As(err, new(*BeforeError)) {
			t.Errorf("Changes from before the record: %v, want a BeforeError", err)
		}
		if _, err := s.Begin(ctx, res, 40); err != nil { // a recorder that starts later: a gap from 30 to 40
			t.Fatal(err)
		}
		var gap *GapError
		if _, err := s.Changes(ctx, res, 20, 45, 0); !errors.As(err, &gap) || gap.From != 30 || gap.To != 40 {
			t.Errorf("Changes across a gap: %v, want the gap from 30 to 40", err)
		}
		if got, err := s.Changes(ctx, res, 40, 45, 0); err != nil || len(got) != 0 {
			t.Errorf("Changes after the gap: %d, %v", len(got), err)
		}
	})
}
