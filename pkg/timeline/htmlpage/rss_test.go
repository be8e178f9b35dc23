package htmlpage_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/timeline"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/timeline/timelinetest"
)

// BenchmarkWrite3000RSS is BenchmarkWrite3000 in a process of its own
// (this test binary run again, TestWriteChild), so that its peak resident
// set size is the page's writing alone: MB-rss-peak is the child's VmHWM
// (/proc/self/status: Linux; elsewhere not reported), and at its end
// MB-anon-end its anonymous memory and MB-file-end the pages of files it
// maps (the history, which SQLite reads through mmap), s-child its time
// from start to exit.
func BenchmarkWrite3000RSS(b *testing.B) {
	path := timelinetest.File(b, timelinetest.Cluster3000(start))
	for b.Loop() {
		start := time.Now()
		cmd := exec.Command(os.Args[0], "-test.run=^TestWriteChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "HTMLPAGE_CHILD_DB="+path, "HTMLPAGE_CHILD_OUT="+filepath.Join(b.TempDir(), "timeline.html"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("the child: %v\n%s", err, out)
		}
		b.ReportMetric(time.Since(start).Seconds(), "s-child")
		for line := range strings.Lines(string(out)) {
			for field, unit := range map[string]string{"VmHWM": "MB-rss-peak", "RssAnon": "MB-anon-end", "RssFile": "MB-file-end"} {
				if kb, ok := strings.CutPrefix(strings.TrimSpace(line), field+"-kB "); ok {
					n, _ := strconv.ParseFloat(kb, 64)
					b.ReportMetric(n/1024, unit)
				}
			}
		}
	}
}

// TestWriteChild is BenchmarkWrite3000RSS's child: it writes the page of
// the record HTMLPAGE_CHILD_DB names, then prints its peak RSS. Without
// it, it does nothing.
func TestWriteChild(t *testing.T) {
	db := os.Getenv("HTMLPAGE_CHILD_DB")
	if db == "" {
		t.Skip("BenchmarkWrite3000RSS's child")
	}
	q := timeline.Query{Kinds: timelinetest.Kinds(), Since: start, Until: start.Add(24 * time.Hour)}
	st := writeFileT(t, context.Background(), db, os.Getenv("HTMLPAGE_CHILD_OUT"), q)
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return // not Linux: no VmHWM
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		for _, field := range []string{"VmHWM", "RssAnon", "RssFile"} {
			if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
				fmt.Printf("%s-kB %s\n", field, strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			}
		}
	}
	fmt.Printf("page %d bytes\n", st.Bytes)
}
