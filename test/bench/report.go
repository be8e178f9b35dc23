//go:build linux

package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// partReport is what a part's result contributes to the report: one
// section per scenario. A new part (see parts.go) returns one from its
// measure function and fills it in a report_PART.go of its own.
type partReport interface {
	sections(cfg config) []section
}

// section is one scenario's table: its rows, each ours against a baseline
// measured in the same run, and what the reader needs to trust them.
type section struct {
	title string   // the scenario, a heading
	about string   // what is measured and how, a paragraph above the table
	rows  []row    // the table
	extra string   // Markdown after the table (a second table), or ""
	notes []string // the samples behind the medians, warnings: one list item each
}

// row is one line of a section's table: kubectl-reflect's figure against
// one baseline's, the median of the runs of each.
type row struct {
	key          string // names the row in whatLimitsUs (limits.go)
	metric       string
	ours         float64
	baselineName string  // what ours is compared with, "" for no baseline
	baseline     float64 // 0: not measured (n/a)
	unit         string
	format       string  // of the values
	target       float64 // ours/baseline should be at most this; 0: no ratio target
	limit        float64 // ours alone should be at most this, in unit; 0: no such target
	absent       string  // why ours was not measured ("not built"), shown instead; "": measured
	// pairs are the rounds of the two sides, measured in turn: the ratio is
	// their paired median (aggregate), not ours/baseline. Empty: a ratio of
	// two figures that are not rounds (a slope, a sum), ours/baseline.
	pairs []pair
}

// paired is the row's ratio with its rounds' spread.
func (r row) paired() pairedRatio {
	if r.baseline <= 0 {
		return pairedRatio{}
	}
	if len(r.pairs) > 0 {
		return aggregate(r.pairs)
	}
	q := r.ours / r.baseline
	return pairedRatio{median: q, min: q, max: q, rounds: 1}
}

// ratio is the median of the rounds' ratios ours/baseline, 0 without a
// baseline.
func (r row) ratio() float64 { return r.paired().median }

// hasTarget says whether the row is a target rather than a reference.
func (r row) hasTarget() bool { return r.target > 0 || r.limit > 0 }

// status says whether the target is met: "met", "missed", "n/a" when the
// baseline was not measured, "" for a reference row. A ratio target is
// judged on the paired median alone.
func (r row) status() string {
	switch {
	case r.absent != "" && r.hasTarget():
		return "n/a"
	case r.limit > 0 && r.ours <= r.limit, r.target > 0 && r.baseline > 0 && r.ratio() <= r.target:
		return "met"
	case r.limit > 0, r.target > 0 && r.baseline > 0:
		return "missed"
	case r.target > 0:
		return "n/a"
	}
	return ""
}

// statusText is status as the tables print it: a miss in bold, and
// "within noise" after a verdict whose rounds fell on both sides of the
// ratio target.
func (r row) statusText() string {
	s := r.status()
	switch s {
	case "":
		return "-"
	case "missed":
		s = "**missed**"
	}
	if r.target > 0 && r.absent == "" && r.paired().crosses(r.target) {
		s += ", within noise"
	}
	return s
}

// ratioText is the ratio to two decimals, or three when two would round
// a missed target down to it, then the rounds' smallest and largest.
func (r row) ratioText() string {
	if r.baseline <= 0 {
		return "n/a"
	}
	p := r.paired()
	s := fmt.Sprintf("%.2fx", p.median)
	if r.target > 0 && p.median > r.target && math.Round(p.median*100)/100 <= r.target {
		s = fmt.Sprintf("%.3fx", p.median)
	}
	if len(r.pairs) > 0 {
		s += " (" + p.spread() + ")"
	}
	return s
}

func (r row) targetText() string {
	switch {
	case r.limit > 0:
		return fmt.Sprintf("≤ "+r.format+" %s", r.limit, r.unit)
	case r.target > 0:
		return fmt.Sprintf("≤ %.2fx", r.target)
	}
	return "reference"
}

// cells are the row's table cells: metric, ours, the baseline and its
// figure, the ratio, the target, whether it is met, what limits us.
func (r row) cells() []string {
	value := func(v float64) string { return fmt.Sprintf(r.format+" %s", v, r.unit) }
	name, base, ratio := "-", "n/a", "n/a"
	if r.baselineName != "" {
		name = r.baselineName
	}
	if r.baseline > 0 {
		base = value(r.baseline)
		ratio = r.ratioText()
	}
	if r.baselineName == "" {
		base, ratio = "-", "-"
	}
	status := r.statusText()
	ours := value(r.ours)
	if r.absent != "" {
		ours = r.absent
	}
	return []string{r.metric, ours, name, base, ratio, r.targetText(), status, whatLimitsUs[r.key]}
}

const tableHead = "| metric | kubectl-reflect | baseline (same run) | baseline's figure | ratio | target | met | what limits us |\n" +
	"|---|---|---|---|---|---|---|---|\n"

// write writes the section as Markdown under a level-3 heading.
func (s section) write(b *strings.Builder) {
	fmt.Fprintf(b, "\n### %s\n\n", s.title)
	if s.about != "" {
		fmt.Fprintf(b, "%s\n\n", s.about)
	}
	if len(s.rows) > 0 {
		b.WriteString(tableHead)
		for _, r := range s.rows {
			fmt.Fprintf(b, "| %s |\n", strings.Join(escapeCells(r.cells()), " | "))
		}
	}
	if s.extra != "" {
		fmt.Fprintf(b, "\n%s", s.extra)
	}
	if len(s.notes) > 0 {
		b.WriteString("\nSamples, one per run:\n\n")
		for _, n := range s.notes {
			fmt.Fprintf(b, "- %s\n", n)
		}
	}
}

// escapeCells keeps a cell's text from ending it.
func escapeCells(cells []string) []string {
	for i, c := range cells {
		cells[i] = strings.ReplaceAll(c, "|", `\|`)
	}
	return cells
}

// markdown is the whole report: what ran where, the targets at a glance,
// then each part's sections. It is printed and written to -publish.
func (r results) markdown(cfg config) string {
	var secs []section
	p := r.populate
	if p.objects > 0 {
		secs = append(secs, section{title: "Setup", rows: []row{{key: "setup.create",
			metric: fmt.Sprintf("create %d ConfigMaps (client-go, %d parallel writers)", p.objects, cfg.workers),
			ours:   p.elapsed.Seconds(), unit: "s", format: "%.2f"}}})
	}
	for _, rep := range r.reports {
		secs = append(secs, rep.sections(cfg)...)
	}
	var b strings.Builder
	b.WriteString("# kubectl-reflect benchmarks\n\n")
	b.WriteString("Generated by `test/bench` (`make bench`); do not edit by hand. Each figure is the median of the runs " +
		"(`-repeat`); each ratio is the median of the rounds' own ratios, kubectl-reflect's figure over a baseline's measured in the same round, " +
		"the two taking turns (A B, B A, ...; at least 5 rounds), with the smallest and largest round's ratio beside it, and a target is judged on that median " +
		"(\"within noise\" when some rounds met it and some did not). Everything runs on a real local " +
		"control plane (etcd, kube-apiserver) on the same machine. A missed target is reported as missed; no scenario is tuned to its target.\n")
	r.machine.write(&b, cfg)
	if r.failure != "" {
		fmt.Fprintf(&b, "- **incomplete run**: it failed after the parts below: %s\n", r.failure)
	}
	writeTargets(&b, secs)
	b.WriteString("\n## Scenarios\n")
	for _, s := range secs {
		s.write(&b)
	}
	return b.String()
}

// writeTargets lists every row that has a target, met or not.
func writeTargets(b *strings.Builder, secs []section) {
	b.WriteString("\n## Targets at a glance\n\n| scenario | metric | ratio or figure | target | met |\n|---|---|---|---|---|\n")
	for _, s := range secs {
		for _, r := range s.rows {
			if !r.hasTarget() {
				continue
			}
			got := fmt.Sprintf(r.format+" %s", r.ours, r.unit)
			switch {
			case r.absent != "":
				got = r.absent
			case r.target > 0:
				got = r.ratioText()
			}
			status := r.statusText()
			fmt.Fprintf(b, "| %s |\n", strings.Join(escapeCells([]string{s.title, r.metric, got, r.targetText(), status}), " | "))
		}
	}
}

func perEvent(cpu time.Duration, events int) float64 {
	return float64(cpu) / float64(time.Millisecond) / float64(events)
}

func mib(bytes int64) float64 { return float64(bytes) / (1 << 20) }

// medianOf is the median of f over s, 0 for none.
func medianOf[T any](s []T, f func(T) float64) float64 {
	if len(s) == 0 {
		return 0
	}
	v := make([]float64, len(s))
	for i, x := range s {
		v[i] = f(x)
	}
	return median(v)
}

func median(v []float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// joinf formats each of s with f and joins them with ", ".
func joinf[T any](s []T, f func(T) string) string { return joinSep(s, ", ", f) }

// joinSep formats each of s with f and joins them with sep.
func joinSep[T any](s []T, sep string, f func(T) string) string {
	parts := make([]string, len(s))
	for i, x := range s {
		parts[i] = f(x)
	}
	return strings.Join(parts, sep)
}

// count writes n with thousands separators: 20,000.
func count(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
