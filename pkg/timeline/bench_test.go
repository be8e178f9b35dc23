package timeline_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/timeline"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/timeline/timelinetest"
)

var (
	cluster3000     sync.Once
	cluster3000Path string
	cluster3000Err  error
)

// record3000 writes timelinetest.Cluster3000 once per process (a minute
// or so), to a file the benchmarks open read-only, as timeline does.
func record3000(b *testing.B) string {
	cluster3000.Do(func() {
		dir, err := os.MkdirTemp("", "timeline-bench-")
		if err != nil {
			cluster3000Err = err
			return
		}
		cluster3000Path = filepath.Join(dir, "history.db")
		stats, err := timelinetest.Record(context.Background(), cluster3000Path, timelinetest.Cluster3000(start))
		for res, n := range stats {
			b.Logf("%s: %d revisions", res, n)
		}
		cluster3000Err = err
	})
	if cluster3000Err != nil {
		b.Fatal(cluster3000Err)
	}
	return cluster3000Path
}

// BenchmarkBuild3000 is `timeline --since 24h` of 24 h of a 3,000-pod
// cluster (timelinetest.Cluster3000: pods, node Leases, Events): the
// record opened read-only and every lane read. It reports the lanes and
// marks, and the heap in use after the build (MB-heap) and the bytes
// allocated per build.
func BenchmarkBuild3000(b *testing.B) {
	path := record3000(b)
	ctx := context.Background()
	q := timeline.Query{Kinds: timelinetest.Kinds(), Since: start, Until: start.Add(24 * time.Hour)}
	var tl *timeline.Timeline
	for b.Loop() {
		s, err := history.OpenSQLite(ctx, path, history.OpenOptions{ReadOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		tl, err = timeline.Build(ctx, []timeline.Cluster{{Context: "bench", Record: s}}, q)
		s.Close()
		if err != nil {
			b.Fatal(err)
		}
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "MB-heap")
	b.ReportMetric(float64(tl.LaneCount()), "lanes")
	b.ReportMetric(float64(tl.Marks), "marks")
	runtime.KeepAlive(tl)
}
