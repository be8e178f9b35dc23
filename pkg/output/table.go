package output

import (
	"bufio"
	"slices"
	"time"
)

// tablePrinter prints events as rows of a table, the way
// `kubectl get --watch` does:
//
//	EVENT     NAME               DATA   AGE
//	APPLIED   kube-root-ca.crt   1      5d
//
// The columns are EVENT, NAMESPACE (with AllNamespaces, for namespaced
// kinds), then the server's printer columns (priority 0 only, unless wide).
// AGE is recomputed from creationTimestamp at each Flush.
//
// Rows wait in Print and are laid out in Flush, so the rows of one flush (the
// initial list, typically) align together; widths are kept per kind and only
// grow, so later rows line up under the header whenever they fit. A new
// header is printed, after a blank line, when the server's columns change.
//
// A stream of several kinds (SeveralKinds, or from the flush that holds a
// second kind on) prints as one table whatever the kinds: see sharedTable.
type tablePrinter struct {
	w       *bufio.Writer
	opts    Options
	wide    bool
	now     func() time.Time
	layouts map[kindKey]*layout
	pending []pendingRow
	shared  *sharedTable // the table of several kinds, once there are
	headed  bool         // a header was printed
	cells   []string     // scratch: the cells of a run of rows, row after row
}

type pendingRow struct {
	ev Event
	l  *layout
}

func newTablePrinter(w *bufio.Writer, opts Options, wide bool, now func() time.Time) *tablePrinter {
	return &tablePrinter{w: w, opts: opts, wide: wide, now: now, layouts: map[kindKey]*layout{}}
}

func (p *tablePrinter) Print(ev Event) error {
	if ev.Object == nil {
		return errNoObject
	}
	p.pending = append(p.pending, pendingRow{ev: ev, l: p.layoutFor(ev)})
	return nil
}

// layoutFor returns the layout of ev's kind, building it when the kind is
// new or the server's columns for it changed. Events without columns use
// the kind's layout as it is.
func (p *tablePrinter) layoutFor(ev Event) *layout {
	return layoutOf(p.layouts, ev, p.wide, p.opts)
}

// layoutOf returns the layout of ev's kind in layouts, building it (wide,
// with opts) when the kind is new or the server's columns for it changed.
// Events without columns use the kind's layout as it is.
func layoutOf(layouts map[kindKey]*layout, ev Event, wide bool, opts Options) *layout {
	k := kindOf(ev)
	key := kindKey{group: k.Group, kind: k.Kind}
	l := layouts[key]
	if l != nil && (ev.Columns == nil || slices.Equal(l.columns, ev.Columns)) {
		return l
	}
	l = newLayout(k, ev.Columns, wide, opts)
	layouts[key] = l
	return l
}

func (p *tablePrinter) Flush() error {
	if p.shared == nil && (p.opts.SeveralKinds || len(p.layouts) > 1) {
		p.shared = newSharedTable(p.opts)
		for _, l := range p.layouts {
			p.shared.fitNames(l)
		}
	}
	var err error
	if p.shared != nil {
		err = p.flushShared()
	} else {
		err = p.flushKind()
	}
	clear(p.pending)
	p.pending = p.pending[:0]
	if err != nil {
		return err
	}
	return p.w.Flush()
}

// flushKind writes the pending rows of a stream of one kind: each layout's
// header once, before its first row, then the rows under it.
func (p *tablePrinter) flushKind() error {
	now := p.now()
	cells := p.cells[:0]
	for _, r := range p.pending {
		cells = r.l.appendRow(cells, r.ev, p.opts.ShowKind, now)
	}
	all := cells
	defer func() { clear(all); p.cells = all[:0] }()
	p.fit(cells)
	for _, r := range p.pending {
		l := r.l
		if !p.opts.NoHeaders && !l.headed {
			if err := p.header(l.widths, l.headers); err != nil {
				return err
			}
			l.headed = true
		}
		n := len(l.headers)
		if err := writeRow(p.w, l.widths, cells[:n], p.colour(r.ev)); err != nil {
			return err
		}
		cells = cells[n:]
	}
	return nil
}

// fit grows the widths of the pending rows' layouts to hold their cells
// (cells holds them row after row) and the headers still to print.
func (p *tablePrinter) fit(cells []string) {
	for _, r := range p.pending {
		n := len(r.l.headers)
		if !p.opts.NoHeaders && !r.l.headed {
			r.l.widths.fit(r.l.headers)
		}
		r.l.widths.fit(cells[:n])
		cells = cells[n:]
	}
}

// flushShared writes the pending rows of a stream of several kinds: the
// shared header once, then a line per event.
func (p *tablePrinter) flushShared() error {
	s := p.shared
	now := p.now()
	cells := p.cells[:0]
	for _, r := range p.pending {
		cells = r.l.appendSharedRow(cells, r.ev, s.namespace, now)
	}
	all := cells
	defer func() { clear(all); p.cells = all[:0] }()
	n := s.fixed()
	for i, r := 0, 0; r < len(p.pending); r++ {
		s.widths.fitEach(cells[i : i+n])
		i += n + len(p.pending[r].l.pairs)
	}
	if !p.opts.NoHeaders && !s.headed {
		if err := p.header(s.widths, s.headers); err != nil {
			return err
		}
		s.headed = true
	}
	for _, r := range p.pending {
		m := n + len(r.l.pairs)
		if err := writePairsRow(p.w, s.widths, cells[:n], r.l.pairKeys, cells[n:m], p.colour(r.ev)); err != nil {
			return err
		}
		cells = cells[m:]
	}
	return nil
}

// header writes a header row, after a blank line unless it is the first.
func (p *tablePrinter) header(ws widths, headers []string) error {
	if p.headed {
		p.w.WriteString("\n")
	}
	p.headed = true
	return writeRow(p.w, ws, headers, "")
}

// colour is the colour of ev's EVENT cell, "" without Color.
func (p *tablePrinter) colour(ev Event) string {
	if !p.opts.Color {
		return ""
	}
	return eventColour(ev.Type)
}
