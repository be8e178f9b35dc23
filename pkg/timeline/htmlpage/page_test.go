package htmlpage_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/timeline"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/timeline/htmlpage"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/timeline/timelinetest"
)

var start = time.Date(2026, 12, 6, 8, 0, 0, 0, time.UTC)

// small is 20 pods on 2 nodes for 2 h, half replaced each hour, every
// new pod backing off (Warnings).
func small() timelinetest.Config {
	return timelinetest.Config{Start: start, Span: 2 * time.Hour, Pods: 20, Nodes: 2, Namespaces: 2, Churn: 0.5, Warnings: 1, Seed: 3}
}

// page is what a page embeds, decoded.
type page struct {
	meta  map[string]any
	lanes []lane                // every chunk's, in order
	revs  [][][]json.RawMessage // each lane's revisions
	html  string
}

type lane struct {
	C, K  int
	NS, N string
	M     [][]json.RawMessage
}

var scripts = regexp.MustCompile(`<script type="application/x-gzip-base64" class="(revs|lanes)"[^>]*>([^<]*)</script>`)

func decode(t *testing.T, html string) page {
	t.Helper()
	p := page{html: html}
	m := regexp.MustCompile(`<script type="application/json" id="meta">([^<]*)</script>`).FindStringSubmatch(html)
	if m == nil {
		t.Fatal("no meta script")
	}
	if err := json.Unmarshal([]byte(m[1]), &p.meta); err != nil {
		t.Fatalf("meta: %v", err)
	}
	for _, s := range scripts.FindAllStringSubmatch(html, -1) {
		z, err := base64.StdEncoding.DecodeString(s[2])
		if err != nil {
			t.Fatal(err)
		}
		r, err := gzip.NewReader(bytes.NewReader(z))
		if err != nil {
			t.Fatal(err)
		}
		raw, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		if s[1] == "revs" {
			var revs [][][]json.RawMessage
			err = json.Unmarshal(raw, &revs)
			p.revs = append(p.revs, revs...)
		} else {
			var lanes []lane
			err = json.Unmarshal(raw, &lanes)
			p.lanes = append(p.lanes, lanes...)
		}
		if err != nil {
			t.Fatalf("%s: %v", s[1], err)
		}
	}
	return p
}

func write(t *testing.T, s history.Record, q timeline.Query, o htmlpage.Options) (page, htmlpage.Stats) {
	t.Helper()
	var b bytes.Buffer
	st, err := htmlpage.Write(context.Background(), &b, []timeline.Cluster{{Context: "kind", Record: s}}, q, o)
	if err != nil {
		t.Fatal(err)
	}
	if st.Bytes != int64(b.Len()) {
		t.Errorf("Stats.Bytes %d, wrote %d", st.Bytes, b.Len())
	}
	return decode(t, b.String()), st
}

func num(t *testing.T, r json.RawMessage) int64 {
	t.Helper()
	n, err := strconv.ParseInt(string(r), 10, 64)
	if err != nil {
		t.Fatalf("%s: %v", r, err)
	}
	return n
}

// TestWriteEmbedsTimeline: the page's lanes and marks are the timeline's
// (in chunks of a few lanes), each mark of a revision has that revision
// among its lane's, with its object less the noise, and one before it
// unless it created the object (the span's first change is diffed
// against the revision before the span), and Warnings carry
// their reason and message.
func TestWriteEmbedsTimeline(t *testing.T) {
	s := timelinetest.Recorded(t, small())
	q := timeline.Query{Kinds: timelinetest.Kinds(), Since: start.Add(30 * time.Minute), Until: start.Add(2 * time.Hour)}
	p, st := write(t, s, q, htmlpage.Options{ChunkBytes: 16 << 10, Now: func() time.Time { return start }})
	tl, err := timeline.Build(context.Background(), []timeline.Cluster{{Context: "kind", Record: s}}, q)
	if err != nil {
		t.Fatal(err)
	}
	if st.Lanes != tl.LaneCount() || len(p.lanes) != st.Lanes || len(p.revs) != st.Lanes || st.Marks != tl.Marks {
		t.Fatalf("stats %+v, page %d lanes (%d revisions lists); timeline %d lanes, %d marks", st, len(p.lanes), len(p.revs), tl.LaneCount(), tl.Marks)
	}
	if st.Chunks < 2 {
		t.Errorf("%d chunks, want several of 16 KiB", st.Chunks)
	}
	since := int64(p.meta["since"].(float64))
	if since != q.Since.UnixMilli() || int64(p.meta["until"].(float64)) != q.Until.UnixMilli() {
		t.Errorf("meta %v, want the span %v..%v", p.meta, q.Since, q.Until)
	}
	want := map[string]*timeline.Lane{}
	for l := range tl.Lanes() {
		want[l.Kind.Name+" "+l.Namespace+"/"+l.Name] = l
	}
	warnings := 0
	for i, l := range p.lanes {
		kind := p.meta["kinds"].([]any)[l.K].(map[string]any)["name"].(string)
		w := want[kind+" "+l.NS+"/"+l.N]
		if w == nil || len(w.Marks) != len(l.M) {
			t.Fatalf("lane %s %s/%s: %d marks; timeline's %v", kind, l.NS, l.N, len(l.M), w)
		}
		revs := map[int64][]json.RawMessage{}
		for _, r := range p.revs[i] {
			revs[num(t, r[0])] = r
		}
		for j, m := range l.M {
			wm := w.Marks[j]
			if num(t, m[0]) != wm.Time.UnixMilli()-since || num(t, m[1]) != int64(wm.Type) || num(t, m[2]) != int64(wm.RV) {
				t.Errorf("%s mark %d: %s; want %v %v %d", l.N, j, m, wm.Time, wm.Type, wm.RV)
			}
			if wm.Type == timeline.Warning {
				warnings++
				if len(m) != 7 || !strings.Contains(string(m[5]), "Back-off") {
					t.Errorf("%s: warning mark %s, want reason, message and name", l.N, m)
				}
				continue
			}
			r := revs[int64(wm.RV)]
			if r == nil {
				t.Fatalf("%s: mark at resourceVersion %d has no revision", l.N, wm.RV)
			}
			if wm.Type != timeline.Create && wm.Type != timeline.Initial && num(t, p.revs[i][0][0]) >= int64(wm.RV) {
				t.Errorf("%s: the %v at resourceVersion %d has no revision before it to diff against", l.N, wm.Type, wm.RV)
			}
			obj := string(r[5])
			if strings.Contains(obj, "managedFields") || strings.Contains(obj, `"resourceVersion"`) || !strings.Contains(obj, `"name":"`+l.N+`"`) {
				t.Errorf("%s revision %d: object %.200s, want its JSON without noise", l.N, wm.RV, obj)
			}
		}
	}
	if warnings == 0 {
		t.Error("no Warning marks")
	}
}
