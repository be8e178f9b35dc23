package history

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// randomText is n letters from a fixed seed.
func randomText(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + r.IntN(26))
	}
	return b
}

// editedConfigMap writes a ConfigMap of 1 KiB of random text edited revs
// times (a few letters each time, with a new resourceVersion and
// managedFields time) and returns the history's size on disk and its
// objects' blobs, per revision.
func editedConfigMap(tb testing.TB, revs int) (file, blob float64) {
	ctx := context.Background()
	path := filepath.Join(tb.TempDir(), "h.db")
	s, err := OpenSQLite(ctx, path, OpenOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	const res = "configmaps.v1."
	s.Begin(ctx, res, 1)
	r := rand.New(rand.NewPCG(1, 2))
	text := randomText(r, 1024)
	for i := 1; i <= revs; i++ {
		for range 4 {
			text[r.IntN(len(text))] = byte('a' + r.IntN(26))
		}
		rv := uint64(1000 + i)
		doc := fmt.Appendf(nil, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"edited","namespace":"default","uid":"5d4f8e0c-3f8a-4b7e-9a51-0c2d6f1e7b3a","resourceVersion":"%d","creationTimestamp":"2026-12-04T06:00:00Z","managedFields":[{"manager":"kubectl-edit","operation":"Update","apiVersion":"v1","time":"2026-12-04T07:%02d:%02dZ","fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:text":{}}}}]},"data":{"text":%q}}`,
			rv, i/60%60, i%60, text)
		rev := Revision{Namespace: "default", Name: "edited", RV: rv, Time: time.Now(), Op: Modified, Manager: Manager(doc, nil), Object: doc,
			Cells: []byte(`["edited",1,"5m"]`)}
		if err := s.Write(ctx, res, Batch{RV: rv, Revisions: []Revision{rev}}); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := s.db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		tb.Fatal(err)
	}
	var blobs, cells, n, keyframes, pages, free int
	for _, q := range []struct {
		query string
		dst   []any
	}{
		{`SELECT sum(length(object)), sum(length(cells)), count(*), sum(base = 0) FROM revisions`, []any{&blobs, &cells, &n, &keyframes}},
		{`PRAGMA page_count`, []any{&pages}},
		{`PRAGMA freelist_count`, []any{&free}},
	} {
		if err := s.db.QueryRowContext(ctx, q.query).Scan(q.dst...); err != nil {
			tb.Fatal(err)
		}
	}
	tb.Logf("objects %d B, cells %d B, %d revisions, %d keyframes, %d pages (%d free)", blobs, cells, n, keyframes, pages, free)
	fi, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	return float64(fi.Size()) / float64(revs), float64(blobs) / float64(revs)
}

// TestEditedConfigMapSize: a thousand small edits of a 1 KiB ConfigMap
// cost what a delta costs, not a copy (1,290 bytes as a keyframe). The
// bounds are the measurement's (315 bytes of file and 96 of blob per
// revision, at the target of 300) with room for SQLite's pages;
// keyframes only (MaxChain 1) are 2,191 and 1,370.
func TestEditedConfigMapSize(t *testing.T) {
	file, blob := editedConfigMap(t, 1000)
	t.Logf("%.0f bytes per revision on disk, %.0f of them the object's blob", file, blob)
	if file > 400 || blob > 150 {
		t.Errorf("%.0f bytes per revision on disk (at most 400), %.0f of blob (at most 150)", file, blob)
	}
}
