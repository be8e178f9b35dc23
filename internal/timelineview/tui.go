package timelineview

import (
	"context"
	"io"
	"os"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/timeline"
)

// Run draws tl in the terminal (in, out) until q; d is what Enter reads.
func Run(ctx context.Context, in io.Reader, out io.Writer, tl *timeline.Timeline, d Details) error {
	m := NewModel(ctx, tl, d, os.Getenv("NO_COLOR") == "")
	_, err := tea.NewProgram(m, tea.WithAltScreen(), tea.WithInput(in), tea.WithOutput(out), tea.WithContext(ctx)).Run()
	return err
}

// row is a line of the lanes' area: a group's heading (lane nil) or a
// lane.
type row struct {
	group *timeline.Group
	lane  *timeline.Lane
}

// model is the interactive timeline's state (bubbletea's Model).
type model struct {
	tl     *timeline.Timeline
	detail *detailer
	color  bool

	width, height int
	rows          []row // the lanes the filter keeps, under their headings
	sel           int   // the selected row (a lane's)
	top           int   // the first row shown
	since, until  time.Time
	cursor        time.Time // the time under the cursor

	filter    string
	filtering bool

	// text, when not nil, is the revision shown (Enter), scrolled to textTop.
	text    []string
	textTop int
}

// NewModel is the interactive view of tl (bubbletea's Model), 100 by 30
// until the terminal says its size; Enter reads d, until ctx ends.
func NewModel(ctx context.Context, tl *timeline.Timeline, d Details, color bool) tea.Model {
	return newModel(tl, &detailer{ctx: ctx, Details: d}, color)
}

func newModel(tl *timeline.Timeline, d *detailer, color bool) *model {
	m := &model{tl: tl, detail: d, color: color, width: 100, height: 30, since: tl.Since, until: tl.Until}
	m.cursor = tl.Since.Add(tl.Until.Sub(tl.Since) / 2)
	m.refilter()
	return m
}

func (m *model) Init() tea.Cmd { return nil }

// refilter keeps the lanes whose kind, namespace or name hold the filter.
func (m *model) refilter() {
	m.rows = m.rows[:0]
	f := strings.ToLower(m.filter)
	for _, g := range m.tl.Groups {
		head := len(m.rows)
		for _, l := range g.Lanes {
			if f == "" || strings.Contains(strings.ToLower(g.Kind.Name+" "+l.Namespace+"/"+l.Name), f) {
				if len(m.rows) == head {
					m.rows = append(m.rows, row{group: g})
				}
				m.rows = append(m.rows, row{group: g, lane: l})
			}
		}
	}
	m.sel, m.top = 0, 0
	m.moveLane(0)
}

// moveLane moves the selection by d lanes (headings skipped), then
// scrolls it into view.
func (m *model) moveLane(d int) {
	if len(m.rows) == 0 {
		return
	}
	step := 1
	if d < 0 {
		step = -1
	}
	for n := d * step; n > 0; n-- {
		i := m.sel + step
		for i >= 0 && i < len(m.rows) && m.rows[i].lane == nil {
			i += step
		}
		if i < 0 || i >= len(m.rows) {
			break
		}
		m.sel = i
	}
	if m.rows[m.sel].lane == nil && m.sel+1 < len(m.rows) {
		m.sel++
	}
	visible := m.lanesHeight()
	if m.sel < m.top+1 {
		m.top = max(m.sel-1, 0)
	}
	if m.sel >= m.top+visible {
		m.top = m.sel - visible + 1
	}
}

// Update reads a key or the terminal's size.
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.moveLane(0)
	case tea.KeyMsg:
		if msg.Type == tea.KeyCtrlC {
			return m, tea.Quit
		}
		if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste { // keys typed faster than read come as one
			var cmds []tea.Cmd
			for _, r := range msg.Runes {
				_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt})
				cmds = append(cmds, cmd)
			}
			return m, tea.Sequence(cmds...)
		}
		switch {
		case m.text != nil:
			return m, m.textKey(msg)
		case m.filtering:
			m.filterKey(msg)
			return m, nil
		}
		return m, m.key(msg)
	}
	return m, nil
}

// key handles a key of the lanes' view.
func (m *model) key(msg tea.KeyMsg) tea.Cmd {
	sc := m.scale()
	col := sc.Column(m.cursor)
	switch msg.String() {
	case "q", "esc":
		return tea.Quit
	case "down", "j":
		m.moveLane(1)
	case "up", "k":
		m.moveLane(-1)
	case "pgdown", " ":
		m.moveLane(m.lanesHeight())
	case "pgup":
		m.moveLane(-m.lanesHeight())
	case "right", "l":
		m.cursor = sc.Time(min(col+1, sc.Width-1))
	case "left", "h":
		m.cursor = sc.Time(max(col-1, 0))
	case "L", "shift+right":
		m.cursor = sc.Time(min(col+10, sc.Width-1))
	case "H", "shift+left":
		m.cursor = sc.Time(max(col-10, 0))
	case "+", "=", "z":
		m.zoom(0.5)
	case "-", "Z":
		m.zoom(2)
	case "0":
		m.since, m.until = m.tl.Since, m.tl.Until
	case "/":
		m.filtering = true
	case "enter":
		m.open()
	}
	m.cursor = m.scale().Time(m.scale().Column(m.cursor)).Add(m.until.Sub(m.since) / time.Duration(2*max(m.scale().Width, 1)))
	return nil
}

// zoom scales the span shown by f about the cursor, within the
// timeline's and no narrower than a second a column.
func (m *model) zoom(f float64) {
	full := m.tl.Until.Sub(m.tl.Since)
	span := time.Duration(float64(m.until.Sub(m.since)) * f)
	span = min(max(span, time.Duration(m.scale().Width)*time.Second/4), full)
	before := time.Duration(float64(m.cursor.Sub(m.since)) * f)
	m.since = m.cursor.Add(-before)
	if m.since.Before(m.tl.Since) {
		m.since = m.tl.Since
	}
	m.until = m.since.Add(span)
	if m.until.After(m.tl.Until) {
		m.until, m.since = m.tl.Until, m.tl.Until.Add(-span)
	}
}

// filterKey edits the filter.
func (m *model) filterKey(msg tea.KeyMsg) {
	switch msg.Type {
	case tea.KeyEnter:
		m.filtering = false
	case tea.KeyEsc:
		m.filtering, m.filter = false, ""
	case tea.KeyBackspace:
		if r := []rune(m.filter); len(r) > 0 {
			m.filter = string(r[:len(r)-1])
		}
	case tea.KeyRunes, tea.KeySpace:
		m.filter += string(msg.Runes)
	default:
		return
	}
	m.refilter()
}

// textKey scrolls the revision shown, or leaves it.
func (m *model) textKey(msg tea.KeyMsg) tea.Cmd {
	page := max(m.height-2, 1)
	switch msg.String() {
	case "q", "esc", "enter", "backspace":
		m.text = nil
	case "down", "j":
		m.textTop++
	case "up", "k":
		m.textTop--
	case "pgdown", " ":
		m.textTop += page
	case "pgup":
		m.textTop -= page
	}
	if m.text != nil {
		m.textTop = max(min(m.textTop, len(m.text)-page), 0)
	}
	return nil
}

// open shows the revision under the cursor on the selected lane.
func (m *model) open() {
	l := m.lane()
	if l == nil {
		return
	}
	mk, ok := m.markAt(l)
	if !ok {
		return
	}
	m.text, m.textTop = strings.Split(strings.TrimRight(m.detail.text(l, mk), "\n"), "\n"), 0
}

// lane is the selected lane, nil when none.
func (m *model) lane() *timeline.Lane {
	if m.sel < len(m.rows) {
		return m.rows[m.sel].lane
	}
	return nil
}

// markAt is the mark of l under the cursor (the drawn one where several
// share its column), else the one nearest to it in time.
func (m *model) markAt(l *timeline.Lane) (timeline.Mark, bool) {
	sc := m.scale()
	col := sc.Column(m.cursor)
	best, found, drawn := timeline.Mark{}, false, false
	for _, mk := range l.Marks {
		inCol := !mk.Time.Before(m.since) && !mk.Time.After(m.until) && sc.Column(mk.Time) == col
		switch {
		case inCol && (!drawn || mk.Type.Precedence() > best.Type.Precedence()):
			best, found, drawn = mk, true, true
		case !drawn && (!found || absDur(mk.Time.Sub(m.cursor)) < absDur(best.Time.Sub(m.cursor))):
			best, found = mk, true
		}
	}
	return best, found
}

func absDur(d time.Duration) time.Duration { return max(d, -d) }
