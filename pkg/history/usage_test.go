package history

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestUsageAndBeginning: Usage counts each resource's revisions and their
// bytes; the record begins where recording began until a prune moves it,
// and a query before it says which.
func TestUsageAndBeginning(t *testing.T) {
	onEachEngine(t, func(t *testing.T, open opener) {
		ctx := context.Background()
		s := open(t)
		start := time.Now()
		for _, res := range []string{"configmaps.v1.", "leases.v1.coordination.k8s.io"} {
			if _, err := s.Begin(ctx, res, 1); err != nil {
				t.Fatal(err)
			}
		}
		value := strings.Repeat("x", 500)
		for i := uint64(1); i <= 5; i++ {
			b := Batch{RV: i * 10, Revisions: []Revision{rev("a", i*10, Modified, value), rev("b", i*10+1, Modified, value)}}
			b.RV = i*10 + 1
			if err := s.Write(ctx, "configmaps.v1.", b); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Write(ctx, "leases.v1.coordination.k8s.io", Batch{RV: 60}); err != nil { // a renewal not kept: no mark yet
			t.Fatal(err)
		}
		if err := s.Write(ctx, "leases.v1.coordination.k8s.io", Batch{RV: 70, Revisions: []Revision{rev("n", 70, Modified, "holder")}}); err != nil {
			t.Fatal(err)
		}
		got, err := s.Usage(ctx, start)
		if err != nil || len(got) != 2 {
			t.Fatalf("Usage = %+v, %v; want two resources", got, err)
		}
		if cm := got[0]; cm.Resource != "configmaps.v1." || cm.Revisions != 10 || cm.Bytes < 200 || cm.Bytes > 10*600 {
			t.Errorf("configmaps' usage = %+v, want 10 revisions of a few hundred bytes at most", cm)
		}
		if l := got[1]; l.Revisions != 1 || l.Bytes < markBytes+revisionNumbers {
			t.Errorf("leases' usage = %+v, want a revision and its mark", l)
		}
		if later, err := s.Usage(ctx, start.Add(2*time.Minute)); err != nil || len(later) != 0 {
			t.Errorf("Usage since later = %+v, %v; want none", later, err)
		}

		b, err := s.Begins(ctx, "configmaps.v1.")
		if err != nil || b.RV != 1 || b.Pruned != nil || b.Why() != "recording began then" {
			t.Errorf("Begins before a prune = %+v, %v", b, err)
		}
		time.Sleep(2 * time.Millisecond)
		if err := s.Prune(ctx, time.Now(), Cause{Retention: 48 * time.Hour}); err != nil {
			t.Fatal(err)
		}
		_, err = s.StateAt(ctx, "configmaps.v1.", 20)
		if want := "the record begins at "; err == nil || !strings.HasPrefix(err.Error(), want) ||
			!strings.HasSuffix(err.Error(), "(resourceVersion 70): older revisions pruned after 48h0m0s") {
			t.Errorf("StateAt before the prune's cut: %v", err)
		}
		if b, err := s.Begins(ctx, ""); err != nil || b.RV != 70 || b.Pruned == nil || b.Pruned.Retention != 48*time.Hour {
			t.Errorf("Begins after a prune = %+v, %v", b, err)
		}
		if _, err := s.ResourceVersionAt(ctx, start.Add(-time.Hour)); !errors.As(err, new(*BeforeError)) || !strings.Contains(err.Error(), "pruned after 48h") {
			t.Errorf("ResourceVersionAt before the record: %v", err)
		}
	})
}

// TestEmptyBatchesMarkedSeldom: a batch of no revision moves where the
// record ends but is marked only when the newest mark is emptyMarkEvery
// old; one with revisions always is.
func TestEmptyBatchesMarkedSeldom(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	const res = "leases.v1.coordination.k8s.io"
	s.Begin(ctx, res, 1)
	if err := s.Write(ctx, res, Batch{RV: 5, Revisions: []Revision{rev("n1", 5, Modified, "v")}}); err != nil {
		t.Fatal(err)
	}
	for rv := uint64(6); rv < 20; rv++ {
		if err := s.Write(ctx, res, Batch{RV: rv}); err != nil {
			t.Fatal(err)
		}
	}
	if latest, err := s.Latest(ctx, res); err != nil || latest != 19 {
		t.Errorf("Latest = %d, %v; want 19", latest, err)
	}
	var marks int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM marks`).Scan(&marks); err != nil || marks != 1 {
		t.Errorf("%d marks (%v), want 1: empty batches within %s of it are not marked", marks, err, emptyMarkEvery)
	}
	if rv, err := s.ResourceVersionAt(ctx, time.Now()); err != nil || rv != 5 {
		t.Errorf("ResourceVersionAt(now) = %d, %v; want 5", rv, err)
	}
	if err := s.Write(ctx, res, Batch{RV: 21, Revisions: []Revision{rev("n1", 21, Modified, "w")}}); err != nil {
		t.Fatal(err)
	}
	if rv, err := s.ResourceVersionAt(ctx, time.Now()); err != nil || rv != 21 {
		t.Errorf("ResourceVersionAt(now) after a change = %d, %v; want 21", rv, err)
	}
}
