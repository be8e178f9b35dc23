package htmlpage_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/internal/proctest"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/timeline"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/timeline/timelinetest"
)

// BenchmarkWrite3000RSS is BenchmarkWrite3000 in a process of its own
// (this test binary run again, TestWriteChild: proctest.RunChild), so that
// its peak resident set size is the page's writing alone: MB-rss-peak is
// the child's VmHWM (Linux; elsewhere not reported), and at its end
// MB-anon-end its anonymous memory and MB-file-end the pages of files it
// maps (the history, which SQLite reads through mmap), s-child its time
// from start to exit.
func BenchmarkWrite3000RSS(b *testing.B) {
	path := timelinetest.File(b, timelinetest.Cluster3000(start))
	for b.Loop() {
		u, _ := proctest.RunChild(b, "TestWriteChild", "HTMLPAGE_CHILD_DB="+path, "HTMLPAGE_CHILD_OUT="+filepath.Join(b.TempDir(), "timeline.html"))
		b.ReportMetric(u.Elapsed.Seconds(), "s-child")
		for unit, bytes := range map[string]int64{"MB-rss-peak": u.Peak, "MB-anon-end": u.Anon, "MB-file-end": u.File} {
			if bytes > 0 {
				b.ReportMetric(float64(bytes)/(1<<20), unit)
			}
		}
	}
}

// TestWriteChild is BenchmarkWrite3000RSS's child: it writes the page of
// the record HTMLPAGE_CHILD_DB names, then reports its memory. Without
// it, it does nothing.
func TestWriteChild(t *testing.T) {
	if !proctest.IsChild() {
		t.Skip("BenchmarkWrite3000RSS's child")
	}
	q := timeline.Query{Kinds: timelinetest.Kinds(), Since: start, Until: start.Add(24 * time.Hour)}
	st := writeFileT(t, context.Background(), os.Getenv("HTMLPAGE_CHILD_DB"), os.Getenv("HTMLPAGE_CHILD_OUT"), q)
	fmt.Printf("page %d bytes\n", st.Bytes)
	proctest.ReportUsage()
}
