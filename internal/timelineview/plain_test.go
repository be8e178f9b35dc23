package timelineview

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/timeline"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/timeline/timelinetest"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

var start = time.Date(2026, 12, 6, 8, 0, 0, 0, time.UTC)

// recorded is a small cluster's record: 12 pods on 2 nodes for 2 h, a
// third replaced each hour, every new pod backing off.
func recorded(t *testing.T) history.Record {
	return timelinetest.Temp(t, timelinetest.Config{Start: start, Span: 2 * time.Hour, Pods: 12, Nodes: 2, Namespaces: 2, Churn: 0.34, Warnings: 0.5, Seed: 5})
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func TestPlainGolden(t *testing.T) {
	s := recorded(t)
	for _, tc := range []struct {
		name     string
		q        timeline.Query
		width    int
		contexts bool
	}{
		{"two-hours", timeline.Query{Kinds: timelinetest.Kinds(), Since: start, Until: start.Add(2 * time.Hour)}, 100, false},
		{"ten-minutes-narrow", timeline.Query{Kinds: timelinetest.Kinds()[:1], Namespace: "team-1", Since: start.Add(20 * time.Minute), Until: start.Add(30 * time.Minute)}, 72, true},
		{"empty", timeline.Query{Kinds: timelinetest.Kinds()[:1], Namespace: "nowhere", Since: start, Until: start.Add(time.Hour)}, 80, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tl, err := timeline.Build(context.Background(), []timeline.Cluster{{Context: "kind-a", Record: s}}, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := (Plain{Width: tc.width, Contexts: tc.contexts}).Print(&out, tl); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name, out.Bytes())
		})
	}
}
