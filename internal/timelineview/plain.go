package timelineview

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/timeline"
)

// Plain prints a timeline as text: a header, the time axis, the density
// row, a row of mark glyphs per lane under its group's heading, the
// legend and the Warning Events.
type Plain struct {
	Width    int  // columns (0: defaultWidth)
	Contexts bool // several contexts: groups name theirs
}

const (
	defaultWidth = 120
	// maxWarnings is how many Warning Events Plain lists.
	maxWarnings = 20
)

// densityGlyphs draw a column's share of the busiest column's marks.
const densityGlyphs = " .:-=+*#%@"

// Print prints tl on out.
func (p Plain) Print(out io.Writer, tl *timeline.Timeline) error {
	w := bufio.NewWriter(out)
	width := p.Width
	if width == 0 {
		width = defaultWidth
	}
	names := nameWidth(tl, width)
	sc := timeline.Scale{Since: tl.Since, Until: tl.Until, Width: max(width-names, 10)}
	fmt.Fprintf(w, "%s, %d objects, %d marks\n", span(tl.Since, tl.Until), tl.LaneCount(), tl.Marks)
	label, ruler := axis(sc)
	fmt.Fprintf(w, "%-*s%s\n%-*s%s\n", names, "", label, names, "", ruler)
	fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("%-*s%s", names, "density", densityRow(sc.Density(tl.Lanes()))), " "))
	for _, g := range tl.Groups {
		fmt.Fprintln(w, groupTitle(g, p.Contexts))
		for _, l := range g.Lanes {
			fmt.Fprintf(w, "  %-*s%s\n", names-2, clip(l.Name, names-3), strings.TrimRight(string(cells(sc, l)), " "))
		}
	}
	if tl.LaneCount() == 0 {
		fmt.Fprintln(w, "(no revision recorded in this span)")
	}
	fmt.Fprintln(w, Legend())
	printWarnings(w, tl)
	return w.Flush()
}

// Legend names each mark's glyph.
func Legend() string {
	var b strings.Builder
	b.WriteString("legend:")
	for _, t := range timeline.Types {
		fmt.Fprintf(&b, "  %c %s", t.Glyph(), t)
	}
	return b.String()
}

// span is the header's time span, in UTC.
func span(since, until time.Time) string {
	return fmt.Sprintf("timeline %s to %s", since.UTC().Format(time.RFC3339), until.UTC().Format(time.RFC3339))
}

// nameWidth is the width of the names' column: the longest name, within
// a third of the width.
func nameWidth(tl *timeline.Timeline, width int) int {
	n := len("density") + 1
	for l := range tl.Lanes() {
		n = max(n, len(l.Name)+3)
	}
	return min(n, max(width/3, 12))
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:max(n-1, 0)] + "~"
}

// groupTitle is a group's heading: its kind, namespace and context.
func groupTitle(g *timeline.Group, contexts bool) string {
	t := g.Kind.Name
	if g.Namespace != "" {
		t += " in " + g.Namespace
	}
	if contexts {
		t = g.Context + ": " + t
	}
	return t
}

// cells is a lane's row: each mark's glyph in its column, the one of
// highest precedence where several share one.
func cells(sc timeline.Scale, l *timeline.Lane) []rune {
	row := []rune(strings.Repeat(" ", sc.Width))
	prec := make([]int, sc.Width)
	for _, m := range l.Marks {
		if m.Time.Before(sc.Since) || m.Time.After(sc.Until) {
			continue
		}
		c := sc.Column(m.Time)
		if row[c] == ' ' || m.Type.Precedence() > prec[c] {
			row[c], prec[c] = m.Type.Glyph(), m.Type.Precedence()
		}
	}
	return row
}

// axis is the labels of sc's ticks and a ruler marking them.
func axis(sc timeline.Scale) (string, string) {
	label := []byte(strings.Repeat(" ", sc.Width))
	ruler := []byte(strings.Repeat("-", sc.Width))
	end := -1
	for _, t := range sc.Ticks(12, time.UTC) {
		ruler[t.Column] = '+'
		if t.Column > end && t.Column+len(t.Label) <= sc.Width {
			copy(label[t.Column:], t.Label)
			end = t.Column + len(t.Label)
		}
	}
	return strings.TrimRight(string(label), " "), string(ruler)
}

// densityRow draws each column's count against the busiest column's.
func densityRow(counts []int) string {
	top := 0
	for _, c := range counts {
		top = max(top, c)
	}
	row := make([]byte, len(counts))
	for i, c := range counts {
		row[i] = ' '
		if c > 0 {
			row[i] = densityGlyphs[1+(c*(len(densityGlyphs)-2)+top-1)/top]
		}
	}
	return strings.TrimRight(string(row), " ")
}

// printWarnings lists the Warning Events of tl, oldest first, up to
// maxWarnings.
func printWarnings(w io.Writer, tl *timeline.Timeline) {
	type line struct {
		at   time.Time
		text string
	}
	var lines []line
	for l := range tl.Lanes() {
		for _, m := range l.Marks {
			if m.Type == timeline.Warning && m.Event != nil {
				lines = append(lines, line{m.Time, fmt.Sprintf("%s  %s %s  %s  %s", m.Time.UTC().Format(time.RFC3339), l.Kind.Name, objectName(l), m.Event.Reason, m.Event.Message)})
			}
		}
	}
	if len(lines) == 0 {
		return
	}
	slices.SortStableFunc(lines, func(a, b line) int { return a.at.Compare(b.at) })
	fmt.Fprintf(w, "Warning Events (%d):\n", len(lines))
	for i, ln := range lines {
		if i == maxWarnings {
			fmt.Fprintf(w, "  ... and %d more\n", len(lines)-maxWarnings)
			break
		}
		fmt.Fprintf(w, "  %s\n", ln.text)
	}
}

// objectName is namespace/name, or name.
func objectName(l *timeline.Lane) string {
	if l.Namespace == "" {
		return l.Name
	}
	return l.Namespace + "/" + l.Name
}
