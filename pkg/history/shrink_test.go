package history

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// TestSQLiteShrink: a history over its size limit drops its oldest part
// until the pages in use fit, keeping the latest state whole; a limit
// smaller than the state itself keeps the state and says how much it takes.
func TestSQLiteShrink(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	const res = "configmaps.v1."
	s.Begin(ctx, res, 1)
	r := rand.New(rand.NewPCG(3, 4))
	rv := uint64(1)
	for range 300 {
		var b Batch
		for i := range 10 {
			rv++
			b.Revisions = append(b.Revisions, rev(fmt.Sprint("cm-", i), rv, Modified, string(randomText(r, 1024))))
		}
		b.RV = rv
		if err := s.Write(ctx, res, b); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond) // writes a millisecond apart, as marks of time
	}
	before, err := s.usedBytes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const limit = 1 << 20
	used, err := s.Shrink(ctx, limit)
	if err != nil || used > limit {
		t.Fatalf("Shrink(%d) from %d: %d bytes in use, %v", limit, before, used, err)
	}
	state, err := s.StateAt(ctx, res, rv)
	if err != nil || len(state) != 10 {
		t.Fatalf("the latest state after Shrink: %d objects, %v", len(state), err)
	}
	_, err = s.StateAt(ctx, res, 20)
	if before := new(BeforeError); !errors.As(err, &before) || before.Pruned == nil || before.Pruned.MaxSize != limit {
		t.Errorf("StateAt of the oldest part after Shrink: %v, want a BeforeError pruned for the size", err)
	}
	if want := "older revisions pruned to stay under 1Mi"; !strings.HasSuffix(err.Error(), ": "+want) {
		t.Errorf("StateAt of the oldest part after Shrink: %q, want it to end %q", err, want)
	}
	if b, err := s.Begins(ctx, ""); err != nil || b.Pruned == nil || b.RV <= 20 {
		t.Errorf("Begins after Shrink: %+v, %v", b, err)
	}
	t.Logf("%d bytes in use, %d after Shrink(%d)", before, used, limit)

	used, err = s.Shrink(ctx, 1024) // less than the state itself
	if err != nil || used <= 1024 {
		t.Fatalf("Shrink below the state: %d, %v", used, err)
	}
	if state, err := s.StateAt(ctx, res, rv); err != nil || len(state) != 10 {
		t.Errorf("the latest state after Shrink below it: %d objects, %v", len(state), err)
	}
}
