//go:build linux

package main

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
)

// everyReport is one result of each part, as empty as the report allows.
func everyReport() []partReport {
	sizes := []int{2000, 20000, 100000}
	scale := scaleResult{sizes: sizes, grow: make([]time.Duration, len(sizes)), samples: map[cacheKind][][]syncSample{}}
	for _, kind := range scaleKinds() {
		scale.samples[kind] = make([][]syncSample, len(sizes))
	}
	// a kind recorded: the realistic part has a row per kind
	realisticWithKind := realisticResult{churn: realisticWindow{usage: []history.Usage{{Resource: "pods.v1."}}}}
	// blame's records: a pair of rows per size
	var blamed historyResult
	for _, size := range blameRecordSizes {
		blamed.blameRecords = append(blamed.blameRecords, blameRecordResult{revisions: size.revisions, key: size.key})
	}
	return []partReport{getResult{}, watchResult{}, controllerResult{}, serveResult{}, contextsResult{}, blamed, realisticWithKind, memoryResult{}, relistResult{}, scale}
}

// TestWhatLimitsUsCoversEveryRow: every row of the report says what limits
// it, and no text is left for a row that is gone.
func TestWhatLimitsUsCoversEveryRow(t *testing.T) {
	used := map[string]bool{"setup.create": true}
	for _, rep := range everyReport() {
		for _, s := range rep.sections(config{}) {
			for _, r := range s.rows {
				used[r.key] = true
				if whatLimitsUs[r.key] == "" {
					t.Errorf("%s: row %q (key %q) has no what-limits-us text", s.title, r.metric, r.key)
				}
			}
		}
	}
	for _, key := range slices.Sorted(maps.Keys(whatLimitsUs)) {
		if !used[key] {
			t.Errorf("whatLimitsUs[%q]: no row has that key", key)
		}
	}
}

// TestIssue11Targets: the targets of issue 11 (and issue 9's for the
// controller) are in the report's rows.
func TestIssue11Targets(t *testing.T) {
	want := map[string]string{
		"sync": "≤ 0.60x", "sync.crd": "≤ 0.30x", "heap": "≤ 0.35x", "get.all": "≤ 0.15x", "live.cpu": "≤ 0.35x",
		"watch.rss": "≤ 0.25x", "get.json.rss": "≤ 0.30x", "relist.peak": "≤ 1.20x",
		"controller.time": "≤ 1.00x", "controller.cpu": "≤ 0.50x", "controller.rss": "≤ 0.50x", "controller.p99": "≤ 50.0 ms",
		"scale.linear.time": "≤ 1.10x", "scale.linear.heap": "≤ 1.10x",
	}
	got := map[string]string{}
	for _, rep := range everyReport() {
		for _, s := range rep.sections(config{}) {
			for _, r := range s.rows {
				got[r.key] = r.targetText()
			}
		}
	}
	for key, target := range want {
		if got[key] != target {
			t.Errorf("row %q: target %q, want %q", key, got[key], target)
		}
	}
}

func TestScaleSlopes(t *testing.T) {
	sample := func(secs float64, heap int64) syncSample {
		return syncSample{elapsed: time.Duration(secs * float64(time.Second)), heap: heap}
	}
	r := scaleResult{sizes: []int{1000, 2000, 4000}, grow: make([]time.Duration, 3), samples: map[cacheKind][][]syncSample{
		// Time: 1 ms per object, then 1.5 ms (non-linear); heap: 1 KiB per object all along.
		cacheStore: {{sample(1, 1<<20)}, {sample(2, 2<<20)}, {sample(5, 4<<20)}},
		cacheTyped: {{sample(1, 1<<20)}, {sample(2, 2<<20)}, {sample(4, 4<<20)}},
	}}
	m := scaleMetrics()
	heap := m[2]
	if got := r.slope(cacheStore, 1, m[0]); got < 999 || got > 1001 {
		t.Errorf("time slope 1000→2000 = %.1f µs, want 1000", got)
	}
	if got := r.slope(cacheStore, 2, heap); got < 1048 || got > 1049 {
		t.Errorf("heap slope 2000→4000 = %.1f B, want 1048.6", got)
	}
	table := r.slopeTable()
	for _, want := range []string{"| kubectl-reflect store | sync time | 1000.0 µs | 1500.0 µs | **non-linear** (1.50x) |",
		"| typed informer | sync time | 1000.0 µs | 1000.0 µs | yes (1.00x) |"} {
		if !strings.Contains(table, want) {
			t.Errorf("slope table lacks %q:\n%s", want, table)
		}
	}
}

func TestLinearity(t *testing.T) {
	tests := []struct {
		prev, next float64
		want       string
	}{
		{100, 110, "yes (1.10x)"},
		{100, 111, "**non-linear** (1.11x)"},
		{100, 50, "yes (0.50x)"},
		{0, 50, "n/a (the step before is 0.0)"},
	}
	for _, tt := range tests {
		if got := linearity(tt.prev, tt.next); got != tt.want {
			t.Errorf("linearity(%v, %v) = %q, want %q", tt.prev, tt.next, got, tt.want)
		}
	}
}

func TestParseSizes(t *testing.T) {
	tests := []struct {
		in      string
		want    []int
		wantErr bool
	}{
		{"2000,20000,100000", []int{2000, 20000, 100000}, false},
		{" 1000, 5000 ", []int{1000, 5000}, false},
		{"1000", nil, true},
		{"5000,1000", nil, true},
		{"1000,1000,2000", nil, true},
		{"1000,x", nil, true},
		{"0,1000", nil, true},
	}
	for _, tt := range tests {
		got, err := parseSizes(tt.in)
		if (err != nil) != tt.wantErr || !slices.Equal(got, tt.want) {
			t.Errorf("parseSizes(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestReproduce(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "make bench"},
		{[]string{"-publish", "BENCHMARKS.md"}, "make bench"},
		{[]string{"-publish=BENCHMARKS.md", "-repeat", "7", "-note", "busy"}, "make bench BENCHFLAGS='-repeat 7'"},
		{[]string{"-publish", "x.md", "-quick", "-only", "get,watch", "--out", "/tmp/r.md"}, "make bench BENCHFLAGS='-quick -only get,watch'"},
		{[]string{"-scale-sizes", "1000,5000 "}, `make bench BENCHFLAGS='-scale-sizes "1000,5000 "'`},
	}
	for _, tt := range tests {
		if got := reproduce(tt.args); got != tt.want {
			t.Errorf("reproduce(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}

// TestMarkdownSaysMissed: the report names a missed target in the table of
// targets and its scenario.
func TestMarkdownSaysMissed(t *testing.T) {
	r := results{reports: []partReport{getResult{samples: map[getCommand][]getSample{
		reflectGetAll: {{elapsed: time.Second}}, kubectlGetAll: {{elapsed: 2 * time.Second}},
	}}}}
	md := r.markdown(config{objects: 10})
	for _, want := range []string{"| `get`: a cold process to its exit (10 ConfigMaps) | `get cm -A`: wall time | 0.50x (1 round) | ≤ 0.15x | **missed** |",
		"## Machine and run", "### `get`: a cold process to its exit"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 20000: "20,000", 100000: "100,000", 1234567: "1,234,567"} {
		if got := count(n); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestStaleBinary(t *testing.T) {
	tests := []struct {
		version, head string
		stale         bool
	}{
		{"kubectl-reflect 6c79f77 (commit 6c79f77, built 2026-12-05T12:41:52Z, go1.26.8)", "6c79f77", false},
		{"kubectl-reflect 6c79f77 (commit 6c79f77, built 2026-12-05T12:41:52Z, go1.26.8)", "6c79f77a", false},
		{"kubectl-reflect cf61944 (commit cf61944, built 2026-12-05T09:18:58Z, go1.26.8)", "6c79f77", true},
		{"kubectl-reflect dev", "6c79f77", false}, // no commit to compare
	}
	for _, tc := range tests {
		if got := staleBinary(tc.version, tc.head); got != tc.stale {
			t.Errorf("staleBinary(%q, %q) = %t, want %t", tc.version, tc.head, got, tc.stale)
		}
	}
}

// TestTimelineRows: issue 49's timeline targets, and the --html rows of
// a binary without --html say "not built" and n/a rather than met.
func TestTimelineRows(t *testing.T) {
	s := getSample{elapsed: 700 * time.Millisecond, hwm: 90e6}
	built := timelineResult{plain: []getSample{s}, html: []getSample{s}, htmlBytes: []int64{12e6}}
	absent := timelineResult{plain: []getSample{s}, noHTML: "not built"}
	want := map[string]string{"history.timeline": "≤ 1.00 s", "history.timeline.rss": "≤ 150 MB",
		"history.timeline.html": "≤ 5.00 s", "history.timeline.html.rss": "≤ 150 MB"}
	for _, r := range built.rows() {
		if got := r.targetText(); got != want[r.key] {
			t.Errorf("row %q: target %q, want %q", r.key, got, want[r.key])
		}
		if r.status() != "met" {
			t.Errorf("row %q: %s, want met", r.key, r.status())
		}
	}
	for _, r := range absent.rows() {
		wantStatus, wantValue := "met", ""
		if r.absent != "" {
			wantStatus, wantValue = "n/a", "not built"
		}
		if r.status() != wantStatus || r.absent != wantValue {
			t.Errorf("row %q without --html: %s, %q; want %s, %q", r.key, r.status(), r.absent, wantStatus, wantValue)
		}
		if wantValue != "" && r.cells()[1] != wantValue {
			t.Errorf("row %q without --html: cell %q, want %q", r.key, r.cells()[1], wantValue)
		}
	}
	if notes := strings.Join(built.notes(), "\n"); !strings.Contains(notes, "the HTML file's size (MB): 12.0") {
		t.Errorf("notes without the HTML file's size:\n%s", notes)
	}
}

// TestBlameRecordRows: one pair of rows per record size, each held to
// issue 49's 200 ms, and a note per size with the record's file.
func TestBlameRecordRows(t *testing.T) {
	s := getSample{elapsed: 150 * time.Millisecond}
	var rs []blameRecordResult
	for _, size := range blameRecordSizes {
		rs = append(rs, blameRecordResult{revisions: size.revisions, key: size.key, bytes: 2e6, whole: []getSample{s}, field: []getSample{s}})
	}
	rows := blameRecordRows(rs)
	if len(rows) != 2*len(blameRecordSizes) {
		t.Fatalf("%d rows, want %d", len(rows), 2*len(blameRecordSizes))
	}
	for _, r := range rows {
		if got := r.targetText(); got != "≤ 0.200 s" || r.status() != "met" {
			t.Errorf("row %q: target %q, %s; want ≤ 0.200 s, met", r.key, got, r.status())
		}
	}
	if notes := strings.Join(blameRecordNotes(rs), "\n"); !strings.Contains(notes, "record of 1,000,000 revisions: 2.0 MB") {
		t.Errorf("notes without the record's size:\n%s", notes)
	}
}
