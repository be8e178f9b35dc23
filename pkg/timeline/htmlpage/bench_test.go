package htmlpage_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/timeline"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/timeline/htmlpage"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/timeline/timelinetest"
)

// BenchmarkWrite3000 is `timeline --html` of 24 h of a 3,000-pod cluster
// (the target: under 5 s and 150 MB RSS): the record opened
// read-only, every lane and each lane's revisions written to a file. It
// reports the page's size (MB-page), the lanes, marks and revisions, and
// the most memory the Go runtime held from the system while writing
// (MB-sys-peak: an upper bound of the heap's share of RSS, sampled every
// 20 ms) and the most heap in use (MB-heap-peak).
func BenchmarkWrite3000(b *testing.B) {
	path := timelinetest.File(b, timelinetest.Cluster3000(start))
	ctx := context.Background()
	q := timeline.Query{Kinds: timelinetest.Kinds(), Since: start, Until: start.Add(24 * time.Hour)}
	out := filepath.Join(b.TempDir(), "timeline.html")
	runtime.GC()
	stop := samplePeaks()
	var st htmlpage.Stats
	for b.Loop() {
		st = writeFile(b, ctx, path, out, q)
	}
	sys, heap := stop()
	b.ReportMetric(float64(st.Bytes)/1e6, "MB-page")
	b.ReportMetric(float64(st.Lanes), "lanes")
	b.ReportMetric(float64(st.Marks), "marks")
	b.ReportMetric(float64(st.Revisions), "revisions")
	b.ReportMetric(float64(sys)/(1<<20), "MB-sys-peak")
	b.ReportMetric(float64(heap)/(1<<20), "MB-heap-peak")
}

func writeFile(b *testing.B, ctx context.Context, db, out string, q timeline.Query) htmlpage.Stats {
	return writeFileT(b, ctx, db, out, q)
}

func writeFileT(b testing.TB, ctx context.Context, db, out string, q timeline.Query) htmlpage.Stats {
	s, err := history.OpenSQLite(ctx, db, history.OpenOptions{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	f, err := os.Create(out)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	st, err := htmlpage.Write(ctx, f, []timeline.Cluster{{Context: "bench", Record: s}}, q, htmlpage.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return st
}

// samplePeaks samples the runtime's memory every 5 ms until stop, which
// returns the peaks of Sys and HeapInuse.
func samplePeaks() (stop func() (sys, heap uint64)) {
	var sys, heap atomic.Uint64
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			sys.Store(max(sys.Load(), ms.Sys))
			heap.Store(max(heap.Load(), ms.HeapInuse))
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() (uint64, uint64) {
		close(done)
		<-finished
		return sys.Load(), heap.Load()
	}
}
