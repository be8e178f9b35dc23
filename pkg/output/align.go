package output

import (
	"bufio"
	"strings"
	"unicode/utf8"
)

// kubectl's tabwriter (cli-runtime printers.GetNewTabWriter) pads each cell
// to the widest cell of its column plus 3 spaces, at least 6, and with
// RememberWidths a column never narrows. widths does the same, one flush of
// rows at a time, so live rows line up under the header printed for the
// initial list whenever they fit.
const (
	minCellWidth = 6
	cellPadding  = 3
)

// widths are the padded widths of a table's columns, all but the last
// (which is never padded).
type widths []int

// fit grows the widths to hold cells, all but the last.
func (ws *widths) fit(cells []string) {
	if len(cells) > 0 {
		ws.fitEach(cells[:len(cells)-1])
	}
}

// fitEach grows the widths to hold every cell of cells.
func (ws *widths) fitEach(cells []string) {
	for i := range cells {
		w := max(visibleWidth(cells[i])+cellPadding, minCellWidth)
		if i >= len(*ws) {
			*ws = append(*ws, w)
		} else if w > (*ws)[i] {
			(*ws)[i] = w
		}
	}
}

// visibleWidth counts runes, as tabwriter does; cells never hold escape
// sequences (see cellText), colour is added when writing.
func visibleWidth(s string) int { return utf8.RuneCountInString(s) }

const spaces = "                                                                "

// writeRow writes cells padded to ws, then a newline. ws must fit cells.
// colour, when not "", is the ANSI colour of the first cell.
func writeRow(w *bufio.Writer, ws widths, cells []string, colour string) error {
	writeCells(w, ws, cells, colour, false)
	_, err := w.WriteString("\n")
	return err
}

// writeCells writes cells padded to ws, the last one too if padLast.
func writeCells(w *bufio.Writer, ws widths, cells []string, colour string, padLast bool) {
	for i, cell := range cells {
		if i == 0 && colour != "" {
			w.WriteString(colour)
			w.WriteString(cell)
			w.WriteString(ansiReset)
		} else {
			w.WriteString(cell)
		}
		if i == len(cells)-1 && !padLast {
			break
		}
		for pad := ws[i] - visibleWidth(cell); pad > 0; pad -= len(spaces) {
			w.WriteString(spaces[:min(pad, len(spaces))])
		}
	}
}

// ANSI colours of the EVENT column and of diffs.
const (
	ansiGreen = "\x1b[32m"
	ansiRed   = "\x1b[31m"
	ansiCyan  = "\x1b[36m"
	ansiBold  = "\x1b[1m"
	ansiReset = "\x1b[0m"
)

// eventColour is the colour of an event type's cell, "" for none.
func eventColour(t EventType) string {
	switch t {
	case Applied:
		return ansiGreen
	case Deleted:
		return ansiRed
	}
	return ""
}

// cellText makes a value safe for one table cell like kubectl does: it stops
// at the first line break (adding "...") and shows ESC as "^[", so objects
// cannot break the table or drive the terminal.
func cellText(s string) string {
	if !strings.ContainsAny(s, "\f\n\r\x1b") {
		return s
	}
	if i := strings.IndexAny(s, "\f\n\r"); i >= 0 {
		s = s[:i] + "..."
	}
	return strings.ReplaceAll(s, "\x1b", "^[")
}
