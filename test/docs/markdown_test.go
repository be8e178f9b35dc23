package docs

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// page is one Markdown file: its lines and its fenced blocks.
type page struct {
	path   string
	lines  []string
	blocks []block
	// fleet, from a line "<!-- doc-test-page: fleet NAME,NAME... -->", are
	// the clusters the page's examples run against, a context each (the
	// first current), instead of the one control plane.
	fleet []string
	// databases, from a line "<!-- doc-test-page: postgres DB,DB... -->",
	// are PostgreSQL databases made for the page, on a server its commands
	// reach through libpq's environment (PGHOST, PGUSER: postgres:///DB).
	databases []string
}

// block is a fenced block: its info string, the doc-test directives
// before it (if any) and its content, lines [start, end) of the page.
type block struct {
	info      string
	directive string // "", "skip", "file" or "await"
	arg       string
	// vary, from "<!-- doc-test: vary V... -->", are the values the
	// block's output shows that change from run to run (normalize_test.go).
	vary []string
	// elide, from "<!-- doc-test: ellipsis -->": a line "..." of the
	// block's output stands for any number of lines.
	elide      bool
	start, end int
}

// step is one command of a console block and the output shown after it,
// lines [outStart, outEnd) of the page.
type step struct {
	cmd              string
	line             int // the page's line of the command, from 1
	outStart, outEnd int
}

var (
	fence     = regexp.MustCompile("^(```+)\\s*([^`\\s]*)")
	directive = regexp.MustCompile(`^<!--\s*doc-test:\s*(\w+)\s*(.*?)\s*-->$`)
	pageFleet = regexp.MustCompile(`^<!--\s*doc-test-page:\s*fleet\s+(\S+)\s*-->$`)
	pageDBs   = regexp.MustCompile(`^<!--\s*doc-test-page:\s*postgres\s+(\S+)\s*-->$`)
)

// parsePage splits text into lines and finds its fenced blocks, and the
// directive each carries; an unknown directive or an unclosed fence is an
// error.
func parsePage(path, text string) (*page, error) {
	p := &page{path: path, lines: strings.Split(strings.TrimSuffix(text, "\n"), "\n")}
	for i := 0; i < len(p.lines); i++ {
		if m := pageFleet.FindStringSubmatch(strings.TrimSpace(p.lines[i])); m != nil {
			p.fleet = strings.Split(m[1], ",")
			continue
		}
		if m := pageDBs.FindStringSubmatch(strings.TrimSpace(p.lines[i])); m != nil {
			p.databases = strings.Split(m[1], ",")
			continue
		}
		m := fence.FindStringSubmatch(p.lines[i])
		if m == nil {
			continue
		}
		b := block{info: m[2], start: i + 1}
		end := closingFence(p.lines, i+1, m[1])
		if end < 0 {
			return nil, fmt.Errorf("%s:%d: fence never closed", path, i+1)
		}
		b.end = end
		if err := p.readDirective(&b, i); err != nil {
			return nil, err
		}
		p.blocks = append(p.blocks, b)
		i = end
	}
	return p, nil
}

func closingFence(lines []string, from int, open string) int {
	for j := from; j < len(lines); j++ {
		if strings.TrimSpace(lines[j]) == open {
			return j
		}
	}
	return -1
}

// readDirective reads the doc-test comments on the nearest non-blank
// lines before the fence at line i: one of skip, file and await, and vary
// and ellipsis.
func (p *page) readDirective(b *block, i int) error {
	for j := i - 1; j >= 0; j-- {
		line := strings.TrimSpace(p.lines[j])
		if line == "" {
			continue
		}
		m := directive.FindStringSubmatch(line)
		if m == nil {
			return nil
		}
		if err := p.setDirective(b, m[1], m[2]); err != nil {
			return fmt.Errorf("%s:%d: %w", p.path, j+1, err)
		}
	}
	return nil
}

func (p *page) setDirective(b *block, name, arg string) error {
	switch name {
	case "vary":
		if arg == "" || b.vary != nil {
			return fmt.Errorf("one doc-test vary names the values that vary")
		}
		b.vary = strings.Fields(arg)
		_, err := newVarying(b.vary)
		return err
	case "ellipsis":
		if arg != "" || b.elide {
			return fmt.Errorf("doc-test ellipsis takes no argument, once")
		}
		b.elide = true
		return nil
	case "skip", "file":
		if arg == "" {
			return fmt.Errorf("doc-test %s needs an argument", name)
		}
	case "await":
		if n, err := strconv.Atoi(arg); err != nil || n < 0 {
			return fmt.Errorf("doc-test await needs a line count, not %q", arg)
		}
	default:
		return fmt.Errorf("unknown doc-test directive %q", name)
	}
	if b.directive != "" {
		return fmt.Errorf("doc-test %s and %s: a block is written, skipped or awaited", name, b.directive)
	}
	b.directive, b.arg = name, arg
	return nil
}

// content is the block's text.
func (p *page) content(b block) string {
	return strings.Join(p.lines[b.start:b.end], "\n") + "\n"
}

// steps reads a console block's commands and the outputs shown after them.
func (p *page) steps(b block) ([]step, error) {
	var steps []step
	for i := b.start; i < b.end; {
		if !strings.HasPrefix(p.lines[i], "$ ") {
			if len(steps) == 0 {
				return nil, fmt.Errorf("%s:%d: a console block starts with a command (`$ ...`)", p.path, i+1)
			}
			i++
			continue
		}
		s := step{line: i + 1}
		cmd := strings.TrimPrefix(p.lines[i], "$ ")
		for strings.HasSuffix(cmd, `\`) && i+1 < b.end {
			i++
			cmd = strings.TrimSuffix(cmd, `\`) + "\n" + p.lines[i]
		}
		i++
		s.cmd, s.outStart = cmd, i
		for i < b.end && !strings.HasPrefix(p.lines[i], "$ ") {
			i++
		}
		s.outEnd = i
		steps = append(steps, s)
	}
	return steps, nil
}

// output is the output a step shows.
func (p *page) output(s step) []string { return p.lines[s.outStart:s.outEnd] }
