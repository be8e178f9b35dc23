package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// figure is a measured figure as the prose quotes one: a ratio (0.46x), a
// time with decimals (0.60 s, 30.9 ms) or a size a run measured (1173 B,
// 85.1 MiB). Sizes that are settings or inputs are written otherwise
// (1 KiB, 1Gi), and outputs in fenced blocks are not prose.
var figure = regexp.MustCompile(`\b\d+\.\d+x\b|\b\d+\.\d+ (?:s|ms)\b|\b\d[\d,]*(?:\.\d+)? (?:B|MB|MiB|bytes)\b`)

// TestFiguresComeFromTheBenchmarks checks that every figure README.md and
// docs/ quote is one BENCHMARKS.md publishes, so that no page quotes a run
// the published one is not (the page is written whole by one `make bench`).
func TestFiguresComeFromTheBenchmarks(t *testing.T) {
	published, err := os.ReadFile(filepath.Join(root, "BENCHMARKS.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range pagePaths(t) {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range quotedFigures(t, path, string(text)) {
			if !strings.Contains(string(published), q.figure) {
				t.Errorf("%s:%d: %q is not a figure of BENCHMARKS.md: quote the published run", path, q.line, q.figure)
			}
		}
	}
}

// quote is a figure and the page's line (from 1) that quotes it.
type quote struct {
	line   int
	figure string
}

// quotedFigures returns the figures of a page's prose, fenced blocks left
// out.
func quotedFigures(t *testing.T, path, text string) []quote {
	p, err := parsePage(path, text)
	if err != nil {
		t.Fatal(err)
	}
	fenced := make([]bool, len(p.lines))
	for _, b := range p.blocks {
		for i := max(b.start-1, 0); i <= b.end && i < len(fenced); i++ {
			fenced[i] = true
		}
	}
	var out []quote
	for i, line := range p.lines {
		if fenced[i] {
			continue
		}
		for _, f := range figure.FindAllString(line, -1) {
			out = append(out, quote{i + 1, f})
		}
	}
	return out
}
