package history

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/internal/parallel"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

func openTemp(t *testing.T) (*SQLite, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state", "history.db")
	s, err := OpenSQLite(context.Background(), path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

// cm is a ConfigMap's JSON with one data value.
func cm(name string, rv uint64, value string) []byte {
	return fmt.Appendf(nil, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"namespace":"default","resourceVersion":"%d","managedFields":[{"manager":"kubectl-client-side-apply","time":"2026-12-04T06:00:00Z"},{"manager":"editor","time":"2026-12-04T07:00:00Z"}]},"data":{"v":%q}}`, name, rv, value)
}

func rev(name string, rv uint64, op Op, value string) Revision {
	r := Revision{Namespace: "default", Name: name, RV: rv, Time: time.Now(), Op: op}
	if value != "" {
		r.Object = cm(name, rv, value)
		r.Manager = Manager(r.Object, nil)
	}
	return r
}

func names(revs []Revision) string {
	var out []string
	for _, r := range revs {
		out = append(out, fmt.Sprintf("%s@%d", r.Name, r.RV))
	}
	return strings.Join(out, ",")
}

func TestStateAt(t *testing.T) {
	ctx := context.Background()
	onEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		const res = "configmaps.v1."
		if _, err := s.Begin(ctx, res, 10); err != nil {
			t.Fatal(err)
		}
		batches := []Batch{
			{RV: 10, Revisions: []Revision{rev("a", 5, Added, "a1"), rev("b", 8, Added, "b1")}},
			{RV: 12, Revisions: []Revision{rev("a", 11, Modified, "a2"), rev("c", 12, Added, "c1")}},
			{RV: 15, Revisions: []Revision{rev("b", 15, Deleted, "b1")}},
		}
		for _, b := range batches {
			if err := s.Write(ctx, res, b); err != nil {
				t.Fatal(err)
			}
		}
		tests := []struct {
			rv   uint64
			want string
			err  any
		}{
			{rv: 9, err: new(*BeforeError)},
			{rv: 10, want: "a@5,b@8"},
			{rv: 11, want: "a@11,b@8"},
			{rv: 14, want: "a@11,b@8,c@12"},
			{rv: 15, want: "a@11,c@12"},
			{rv: 99, want: "a@11,c@12"},
		}
		for _, tc := range tests {
			got, err := s.StateAt(ctx, res, tc.rv)
			if tc.err != nil {
				if !errors.As(err, tc.err) {
					t.Errorf("StateAt(%d): err %v, want %T", tc.rv, err, tc.err)
				}
				continue
			}
			if err != nil || names(got) != tc.want {
				t.Errorf("StateAt(%d) = %s, %v; want %s", tc.rv, names(got), err, tc.want)
			}
		}
		got, _ := s.StateAt(ctx, res, 11)
		if string(got[0].Object) != string(cm("a", 11, "a2")) || got[0].Manager != "editor" {
			t.Errorf("object at 11: %s by %q", got[0].Object, got[0].Manager)
		}
		if _, err := s.StateAt(ctx, "secrets.v1.", 11); !errors.Is(err, ErrNotRecorded) {
			t.Errorf("StateAt of another resource: %v, want ErrNotRecorded", err)
		}
	})
}

func TestRestartGapAndFoundDeletion(t *testing.T) {
	ctx := context.Background()
	onEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		const res = "configmaps.v1."
		s.Begin(ctx, res, 10)
		if err := s.Write(ctx, res, Batch{RV: 20, Revisions: []Revision{rev("a", 5, Added, "a1"), rev("b", 20, Added, "b1")}}); err != nil {
			t.Fatal(err)
		}
		s.Close()
		s = open(t)
		start, err := s.Begin(ctx, res, 40)
		if err != nil {
			t.Fatal(err)
		}
		if start.Latest != 20 || len(start.Present) != 2 || start.Present["default/b"] != 20 {
			t.Fatalf("start = %+v", start)
		}
		// b was deleted while nothing recorded: the list at 40 lacks it.
		if err := s.Write(ctx, res, Batch{RV: 40, Revisions: []Revision{{Namespace: "default", Name: "b", RV: 40, Time: time.Now(), Op: Deleted}}}); err != nil {
			t.Fatal(err)
		}
		var gap *GapError
		if _, err := s.StateAt(ctx, res, 30); !errors.As(err, &gap) || gap.From != 20 || gap.To != 40 {
			t.Errorf("StateAt in the gap: %v", err)
		}
		for rv, want := range map[uint64]string{20: "a@5,b@20", 40: "a@5"} {
			if got, err := s.StateAt(ctx, res, rv); err != nil || names(got) != want {
				t.Errorf("StateAt(%d) = %s, %v; want %s", rv, names(got), err, want)
			}
		}
		revs, err := s.Revisions(ctx, res, "default", "b")
		if err != nil || len(revs) != 2 || revs[1].Op != Deleted || string(revs[1].Object) != string(cm("b", 20, "b1")) {
			t.Errorf("revisions of b: %+v, %v", revs, err)
		}
	})
}

func TestPrune(t *testing.T) {
	ctx := context.Background()
	onEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		const res = "configmaps.v1."
		s.Begin(ctx, res, 1)
		value := strings.Repeat("x", 900)
		for i := uint64(1); i <= 10; i++ {
			b := Batch{RV: i * 10, Revisions: []Revision{rev("a", i*10, Modified, value+fmt.Sprint(i))}}
			if i == 3 {
				b.Revisions = append(b.Revisions, rev("gone", 30, Deleted, "g"), rev("kept", 30, Added, "k"))
			}
			if err := s.Write(ctx, res, b); err != nil {
				t.Fatal(err)
			}
		}
		// every revision of a after the first is a delta of it
		q := sqlOf(t, s).conn()
		if _, err := q.ExecContext(ctx, `INSERT INTO heads (resource, rv, data) SELECT id, latest, ? FROM resources`, []byte("saved by another writer")); err != nil {
			t.Fatal(err)
		}
		if err := s.Prune(ctx, time.Now().Add(time.Hour), Cause{Retention: time.Hour}); err != nil {
			t.Fatal(err)
		}
		var saved int
		if err := q.QueryRowContext(ctx, `SELECT count(*) FROM heads`).Scan(&saved); err != nil || saved != 0 {
			t.Errorf("after a prune: %d heads saved (%v), want none", saved, err)
		}
		var kept []string // a's chain starts at 100 now, gone's went; kept's is as it was
		for k := range headsOf(t, s).sums {
			kept = append(kept, k.name)
		}
		if fmt.Sprint(kept) != "[kept]" {
			t.Errorf("heads kept after a prune: %v, want [kept]", kept)
		}
		if _, err := s.StateAt(ctx, res, 50); !errors.As(err, new(*BeforeError)) {
			t.Errorf("StateAt before the cut: %v", err)
		}
		got, err := s.StateAt(ctx, res, 100)
		slices.SortFunc(got, func(x, y Revision) int { return strings.Compare(x.Name, y.Name) })
		if err != nil || names(got) != "a@100,kept@30" || !strings.HasSuffix(string(got[0].Object), value+`10"}}`) {
			t.Errorf("StateAt(100) after prune = %s, %v", names(got), err)
		}
		revs, _ := s.Revisions(ctx, res, "default", "gone")
		if len(revs) != 0 {
			t.Errorf("a deletion before the cut is kept: %v", names(revs))
		}
	})
}

func TestSQLiteRefusesForeignFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, []byte("hello, this is not a database at all"), 0o600)
	if _, err := OpenSQLite(ctx, text, OpenOptions{}); !errors.Is(err, ErrForeign) {
		t.Errorf("a text file: %v", err)
	}
	other := filepath.Join(dir, "other.db")
	s, _ := OpenSQLite(ctx, other, OpenOptions{})
	s.db.Exec(`DROP TABLE meta`)
	s.Close()
	if _, err := OpenSQLite(ctx, other, OpenOptions{}); !errors.Is(err, ErrForeign) {
		t.Errorf("another program's database: %v", err)
	}
	if _, err := OpenSQLite(ctx, filepath.Join(dir, "none.db"), OpenOptions{ReadOnly: true}); err == nil || !strings.Contains(err.Error(), "no history at") {
		t.Errorf("no file, read-only: %v", err)
	}
}

func TestSQLiteFileIsPrivate(t *testing.T) {
	_, path := openTemp(t)
	for p, want := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, %v; want %v", p, fi.Mode().Perm(), err, want)
		}
	}
}

func TestResourceVersionAt(t *testing.T) {
	ctx := context.Background()
	onEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		before := time.Now().Add(-time.Second)
		s.Begin(ctx, "configmaps.v1.", 7)
		s.Write(ctx, "configmaps.v1.", Batch{RV: 7})
		if rv, err := s.ResourceVersionAt(ctx, time.Now()); err != nil || rv != 7 {
			t.Errorf("ResourceVersionAt(now) = %d, %v", rv, err)
		}
		if _, err := s.ResourceVersionAt(ctx, before); !errors.As(err, new(*BeforeError)) {
			t.Errorf("ResourceVersionAt(before) = %v", err)
		}
	})
}

// Two resources written out of resourceVersion order: a time names the
// newest state written by then.
func TestResourceVersionAtAcrossResources(t *testing.T) {
	ctx := context.Background()
	onEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		s.Begin(ctx, "configmaps.v1.", 415)
		s.Begin(ctx, "namespaces.v1.", 412)
		s.Write(ctx, "configmaps.v1.", Batch{RV: 415})
		s.Write(ctx, "namespaces.v1.", Batch{RV: 412}) // later, with an older resourceVersion
		if rv, err := s.ResourceVersionAt(ctx, time.Now().Add(time.Second)); err != nil || rv != 415 {
			t.Errorf("ResourceVersionAt = %d, %v; want 415", rv, err)
		}
	})
}

// TestObjectsAt: a state of several checkpoint parts and changes after
// them is decoded on several goroutines, each reusing its buffer from one
// part to the next, into the API server's order, of the namespace asked,
// each object whole.
func TestObjectsAt(t *testing.T) {
	ctx := context.Background()
	onEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		const res = "configmaps.v1."
		n := 3 * parallel.MinItems // of 1 KiB: two parts
		s.Begin(ctx, res, 1)
		r := rand.New(rand.NewPCG(1, 2))
		b := Batch{RV: uint64(n + 1)}
		want := map[string]string{} // name: value
		for i := range n {
			ns := []string{"b", "a"}[i%2]
			name, value := fmt.Sprintf("o%05d", n-i), string(randomText(r, 1024))
			b.Revisions = append(b.Revisions, Revision{Namespace: ns, Name: name, RV: uint64(i + 2), Time: time.Now(), Op: Added,
				Object: fmt.Appendf(nil, `{"metadata":{"namespace":%q,"name":%q,"resourceVersion":"%d"},"data":{"v":%q}}`, ns, name, i+2, value)})
			want[name] = value
		}
		if err := s.Write(ctx, res, b); err != nil {
			t.Fatal(err)
		}
		if err := s.Checkpoint(ctx, res); err != nil {
			t.Fatal(err)
		}
		at := uint64(n + 1)
		for _, name := range []string{"o00001", "o00002"} { // a's edited, b's deleted
			at++
			r := Revision{Namespace: "b", Name: name, RV: at, Time: time.Now(), Op: Deleted}
			if name == "o00001" {
				r.Namespace, r.Op = "a", Modified
				r.Object = fmt.Appendf(nil, `{"metadata":{"namespace":"a","name":%q,"resourceVersion":"%d"},"data":{"v":"edited"}}`, name, at)
				want[name] = "edited"
			} else {
				delete(want, name)
			}
			if err := s.Write(ctx, res, Batch{RV: at, Revisions: []Revision{r}}); err != nil {
				t.Fatal(err)
			}
		}
		for _, namespace := range []string{"", "a"} {
			objs, err := ObjectsAt(ctx, s, res, at, InNamespace(namespace), object.NewDecoder(object.DecoderOptions{Pack: true}).Forks(2))
			if wantN := map[string]int{"": n - 1, "a": n / 2}[namespace]; err != nil || len(objs) != wantN {
				t.Fatalf("namespace %q: %d objects, %v; want %d", namespace, len(objs), err, wantN)
			}
			for i, o := range objs {
				if i > 0 && store.CompareKeys(store.KeyOf(objs[i-1]), store.KeyOf(o)) >= 0 || namespace != "" && o.Namespace != namespace {
					t.Fatalf("namespace %q: %v then %v", namespace, store.KeyOf(objs[i-1]), store.KeyOf(o))
				}
				if v := gjson.GetBytes(o.JSON(), "data.v").String(); v != want[o.Name] {
					t.Fatalf("namespace %q: %s holds %.20q, want %.20q", namespace, o.Name, v, want[o.Name])
				}
			}
		}
		// Its reader's context ending midway: an error, never part of the state.
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		decode := object.NewDecoder(object.DecoderOptions{}).Forks(2)
		for i, d := range decode {
			decode[i] = func(raw, cells []byte) (*object.Object, error) {
				cancel()
				return d(raw, cells)
			}
		}
		if objs, err := ObjectsAt(cctx, s, res, at, nil, decode); err == nil && len(objs) != n-1 {
			t.Errorf("canceled midway: %d objects and no error", len(objs))
		}
	})
}
