package timelineview

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/timeline"
)

// keysHelp is the keys line at the bottom of the lanes' view.
const keysHelp = "j/k ↑/↓ lanes  h/l ←/→ time (H/L ×10)  +/- zoom  0 all  / filter  enter revision  q quit"

// The lines above and below the lanes: title, axis, ruler, density; the
// mark under the cursor, the keys.
const (
	linesAbove = 4
	linesBelow = 2
)

var (
	styleSelected = lipgloss.NewStyle().Reverse(true)
	styleCursor   = lipgloss.NewStyle().Background(lipgloss.Color("238"))
	styleHeading  = lipgloss.NewStyle().Bold(true)
	styleDim      = lipgloss.NewStyle().Faint(true)
	styleMark     = map[timeline.MarkType]lipgloss.Style{
		timeline.Create:  lipgloss.NewStyle().Foreground(lipgloss.Color("2")),
		timeline.Initial: lipgloss.NewStyle().Foreground(lipgloss.Color("8")),
		timeline.Spec:    lipgloss.NewStyle().Foreground(lipgloss.Color("4")),
		timeline.Status:  lipgloss.NewStyle().Foreground(lipgloss.Color("6")),
		timeline.Change:  lipgloss.NewStyle().Foreground(lipgloss.Color("5")),
		timeline.Delete:  lipgloss.NewStyle().Foreground(lipgloss.Color("1")),
		timeline.Warning: lipgloss.NewStyle().Foreground(lipgloss.Color("3")).Bold(true),
	}
)

// names is the width of the names' column.
func (m *model) names() int { return nameWidth(m.tl, m.width) }

// scale maps the span shown to the track's columns.
func (m *model) scale() timeline.Scale {
	return timeline.Scale{Since: m.since, Until: m.until, Width: max(m.width-m.names(), 10)}
}

// lanesHeight is how many rows of lanes fit.
func (m *model) lanesHeight() int { return max(m.height-linesAbove-linesBelow, 1) }

// style draws s in st, unless colours are off (NO_COLOR).
func (m *model) style(st lipgloss.Style, s string) string {
	if !m.color {
		return s
	}
	return st.Render(s)
}

// View draws the screen.
func (m *model) View() string {
	if m.text != nil {
		return m.viewText()
	}
	var b strings.Builder
	sc := m.scale()
	names := m.names()
	col := sc.Column(m.cursor)
	fmt.Fprintf(&b, "%s  %d objects, %d marks  cursor %s\n", span(m.since, m.until), m.tl.LaneCount(), m.tl.Marks, m.cursor.UTC().Format("15:04:05"))
	label, ruler := axis(sc)
	r := []rune(ruler)
	r[col] = 'v'
	fmt.Fprintf(&b, "%-*s%s\n%-*s%s\n", names, "", label, names, "", string(r))
	fmt.Fprintf(&b, "%-*s%s\n", names, "density", densityRow(sc.Density(m.tl.Lanes())))
	end := min(m.top+m.lanesHeight(), len(m.rows))
	for i := m.top; i < end; i++ {
		b.WriteString(m.viewRow(i, sc, col, names))
		b.WriteByte('\n')
	}
	for i := end - m.top; i < m.lanesHeight(); i++ {
		b.WriteByte('\n')
	}
	b.WriteString(m.status())
	b.WriteByte('\n')
	if m.filtering {
		b.WriteString("/" + m.filter + "_  (enter keeps it, esc clears it)")
	} else {
		help := keysHelp
		if m.filter != "" {
			help = "filter " + m.filter + "  " + help
		}
		b.WriteString(m.style(styleDim, help))
	}
	return b.String()
}

// viewRow draws row i: a group's heading, or a lane's name and marks
// with the cursor's column marked.
func (m *model) viewRow(i int, sc timeline.Scale, col, names int) string {
	rw := m.rows[i]
	if rw.lane == nil {
		return m.style(styleHeading, clip(groupTitle(rw.group, len(m.detail.Clusters) > 1), m.width))
	}
	name := fmt.Sprintf("  %-*s", names-2, clip(rw.lane.Name, names-3))
	if i == m.sel {
		if m.color {
			name = styleSelected.Render(name)
		} else {
			name = ">" + name[1:]
		}
	}
	cells := cells(sc, rw.lane)
	var b strings.Builder
	b.WriteString(name)
	for c, g := range cells {
		s := string(g)
		switch {
		case c == col && g == ' ' && !m.color:
			s = "|"
		case g != ' ' && m.color:
			s = m.markStyle(rw.lane, sc, c).Render(s)
		}
		if c == col && m.color {
			s = styleCursor.Render(s)
		}
		b.WriteString(s)
	}
	return b.String()
}

// markStyle is the colour of the mark drawn in column c of l.
func (m *model) markStyle(l *timeline.Lane, sc timeline.Scale, c int) lipgloss.Style {
	best := timeline.MarkType(0)
	for _, mk := range l.Marks {
		if !mk.Time.Before(sc.Since) && !mk.Time.After(sc.Until) && sc.Column(mk.Time) == c && mk.Type.Precedence() >= best.Precedence() {
			best = mk.Type
		}
	}
	return styleMark[best]
}

// status says what Enter would open: the selected lane's mark under (or
// nearest to) the cursor.
func (m *model) status() string {
	l := m.lane()
	if l == nil {
		return "(no lane)"
	}
	mk, ok := m.markAt(l)
	if !ok {
		return clip(fmt.Sprintf("%s %s: no mark", l.Kind.Name, objectName(l)), m.width)
	}
	when := "at " + mk.Time.UTC().Format(time.RFC3339)
	if !mk.Since.IsZero() { // seen late: it happened within a window
		when = "between " + mk.Since.UTC().Format(time.RFC3339) + " and " + mk.Time.UTC().Format(time.RFC3339)
	}
	s := fmt.Sprintf("%s %s: %c %s %s (resourceVersion %d)", l.Kind.Name, objectName(l), mk.Type.Glyph(), mk.Type, when, mk.RV)
	if mk.Event != nil {
		s += ": " + mk.Event.Reason + " " + mk.Event.Message
	}
	return clip(s, m.width)
}

// viewText draws the revision opened, a page of it.
func (m *model) viewText() string {
	page := max(m.height-1, 1)
	end := min(m.textTop+page, len(m.text))
	var b strings.Builder
	for _, line := range m.text[m.textTop:end] {
		b.WriteString(clip(line, m.width))
		b.WriteByte('\n')
	}
	for i := end - m.textTop; i < page; i++ {
		b.WriteByte('\n')
	}
	b.WriteString(m.style(styleDim, fmt.Sprintf("j/k ↑/↓ scroll  space/pgup page  esc back  (lines %d-%d of %d)", m.textTop+1, end, len(m.text))))
	return b.String()
}
