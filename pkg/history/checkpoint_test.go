package history

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// base is the sqlStore under a store, for tests of its parts.
func (s *sqlStore) base() *sqlStore { return s }

// stateIn is the state of resource id at rv, whole.
func (s *sqlStore) stateIn(ctx context.Context, q querier, id int64, rv uint64) ([]Revision, error) {
	var out []Revision
	err := s.stateEach(ctx, q, id, rv, collect(&out))
	return out, err
}

// stateString is a state as name@rv, sorted, with each object's JSON
// checked against its resourceVersion.
func stateString(t *testing.T, revs []Revision) string {
	t.Helper()
	var out []string
	for _, r := range revs {
		if !strings.Contains(string(r.Object), fmt.Sprintf(`"resourceVersion":"%d"`, r.RV)) {
			t.Errorf("%s@%d holds %s", r.Name, r.RV, r.Object)
		}
		out = append(out, fmt.Sprintf("%s@%d", r.Name, r.RV))
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

// TestCheckpoint: a state read from the checkpoint nearest to it and the
// revisions between them is the state read from every object's latest
// revision, at every resourceVersion before and after it, through random
// changes (deletions and
// re-creations among them), a second checkpoint, and a prune.
func TestCheckpoint(t *testing.T) {
	onEachEngine(t, func(t *testing.T, open opener) {
		ctx := context.Background()
		s := open(t)
		const res = "configmaps.v1."
		s.Begin(ctx, res, 1)
		r := rand.New(rand.NewPCG(5, 6))
		present := map[string]bool{}
		rv := uint64(1)
		write := func(n int) {
			b := Batch{}
			for range n {
				rv++
				name := fmt.Sprintf("o%d", r.IntN(12))
				op := Modified
				switch {
				case !present[name]:
					op = Added
				case r.IntN(4) == 0:
					op = Deleted
				}
				present[name] = op != Deleted
				b.Revisions = append(b.Revisions, rev(name, rv, op, strings.Repeat("v", r.IntN(300))+fmt.Sprint(rv)))
			}
			b.RV = rv
			if err := s.Write(ctx, res, b); err != nil {
				t.Fatal(err)
			}
		}
		check := func(from uint64) {
			t.Helper()
			sq := s.(interface{ base() *sqlStore }).base()
			for at := from; at <= rv; at++ {
				var (
					want, got, each []Revision
					mu              sync.Mutex
				)
				err := sq.inTx(ctx, true, func(q querier) error {
					var err error
					if want, err = sq.latestRevisions(ctx, q, 1, at); err == nil {
						got, err = sq.stateIn(ctx, q, 1, at)
					}
					if err == nil { // on two goroutines, buffers reused
						err = sq.stateEach(ctx, q, 1, at, stream{workers: 2, reuse: true, fn: func(_ int, batch []Revision) error {
							mu.Lock()
							defer mu.Unlock()
							for _, r := range batch {
								r.Object = slices.Clone(r.Object)
								each = append(each, r)
							}
							return nil
						}})
					}
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				if g, e, w := stateString(t, got), stateString(t, each), stateString(t, want); g != w || e != w {
					t.Fatalf("state at %d: from the checkpoint %s (streamed: %s), from the revisions %s", at, g, e, w)
				}
			}
		}
		write(40)
		if err := s.Checkpoint(ctx, res); err != nil {
			t.Fatal(err)
		}
		first := rv
		write(40)
		check(2) // before the first checkpoint too: undone from it
		if err := s.Checkpoint(ctx, res); err != nil {
			t.Fatal(err)
		}
		write(20)
		check(first)
		if err := s.Prune(ctx, time.Now().Add(time.Hour), Cause{Retention: time.Hour}); err != nil {
			t.Fatal(err)
		}
		write(20)
		if err := s.Checkpoint(ctx, res); err != nil {
			t.Fatal(err)
		}
		write(10)
		check(rv - 10)
		got, err := s.StateAt(ctx, res, rv)
		var want []string
		for name, ok := range present {
			if ok {
				want = append(want, name)
			}
		}
		slices.Sort(want)
		var names []string
		for _, r := range got {
			names = append(names, r.Name)
		}
		slices.Sort(names)
		if err != nil || !slices.Equal(names, want) {
			t.Errorf("StateAt(%d) = %v, %v; want %v", rv, names, err, want)
		}
	})
}

// TestCheckpointKeepsTheFileSize: a new checkpoint takes the pages of the
// one it replaces, so that a daemon that checkpoints at each stop does
// not grow its file by a state each time.
func TestCheckpointKeepsTheFileSize(t *testing.T) {
	ctx := context.Background()
	s, err := OpenSQLite(ctx, t.TempDir()+"/h.db", OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const res = "configmaps.v1."
	s.Begin(ctx, res, 1)
	r := rand.New(rand.NewPCG(7, 8))
	b := Batch{RV: 2001}
	for i := range 2000 {
		b.Revisions = append(b.Revisions, rev(fmt.Sprintf("o%d", i), uint64(i+2), Added, string(randomText(r, 1024))))
	}
	if err := s.Write(ctx, res, b); err != nil {
		t.Fatal(err)
	}
	pages := func() int {
		var n int
		s.db.QueryRow(`PRAGMA page_count`).Scan(&n)
		return n
	}
	before := pages()
	var sizes []int
	for i := range 4 {
		rv := uint64(2002 + i)
		if err := s.Write(ctx, res, Batch{RV: rv, Revisions: []Revision{rev("o1", rv, Modified, "changed")}}); err != nil {
			t.Fatal(err)
		}
		if err := s.Checkpoint(ctx, res); err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, pages())
	}
	// The first checkpoint takes pages of its own; the later ones, its.
	if state := sizes[0] - before; sizes[3]-before > state*3/2 {
		t.Errorf("pages: %d, then after each checkpoint %v: the file holds more than one state", before, sizes)
	}
}

// TestCheckpointed: a resource never recorded, or recorded without a
// checkpoint, has none; once checkpointed, it has one.
func TestCheckpointed(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	const res = "configmaps.v1."
	check := func(when string, want bool) {
		t.Helper()
		if got, err := s.Checkpointed(ctx, res); err != nil || got != want {
			t.Fatalf("%s: Checkpointed = %v, %v; want %v", when, got, err, want)
		}
	}
	check("never recorded", false)
	if _, err := s.Begin(ctx, res, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(ctx, res, Batch{RV: 2, Revisions: []Revision{rev("a", 2, Added, "x")}}); err != nil {
		t.Fatal(err)
	}
	check("recorded", false)
	if err := s.Checkpoint(ctx, res); err != nil {
		t.Fatal(err)
	}
	check("checkpointed", true)
}
