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
// grow, so later rows line up under the header whenever they fit.
//
// Several kinds in one stream: names show their kind (configmap/foo) like
// `kubectl get cm,deploy`, from the first row when ShowKind or SeveralKinds
// says so, else from the second kind on. Each kind's header is printed once, before its
// first row (after a blank line unless it is the first), and every event
// after that is one line, whatever its kind: EVENT, NAMESPACE and a leading
// NAME are as wide for every kind, so rows of all kinds start aligned and
// the rest of a row lines up under its own kind's header.
type tablePrinter struct {
	w       *bufio.Writer
	opts    Options
	wide    bool
	now     func() time.Time
	layouts map[kindKey]*layout
	pending []pendingRow
	lead    map[string]int // widths of the leading columns shared by kinds, by header
	headed  bool           // a header was printed
	cells   []string       // scratch: the cells of a run of rows, row after row
}

type pendingRow struct {
	ev Event
	l  *layout
}

func newTablePrinter(w *bufio.Writer, opts Options, wide bool, now func() time.Time) *tablePrinter {
	return &tablePrinter{w: w, opts: opts, wide: wide, now: now, layouts: map[kindKey]*layout{}, lead: map[string]int{}}
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
	k := kindOf(ev)
	key := kindKey{group: k.Group, kind: k.Kind}
	l := p.layouts[key]
	if l != nil && (ev.Columns == nil || slices.Equal(l.columns, ev.Columns)) {
		return l
	}
	l = newLayout(k, ev.Columns, p.wide, p.opts)
	p.layouts[key] = l
	return l
}

func (p *tablePrinter) Flush() error {
	showKinds := p.opts.ShowKind || p.opts.SeveralKinds || len(p.layouts) > 1
	now := p.now()
	cells := p.cells[:0]
	for _, r := range p.pending {
		cells = r.l.appendRow(cells, r.ev, showKinds, now)
	}
	all := cells
	defer func() { clear(all); p.cells = all[:0] }()
	p.fit(cells)
	for _, r := range p.pending {
		l := r.l
		if !p.opts.NoHeaders && !l.headed {
			if p.headed {
				p.w.WriteString("\n")
			}
			p.headed, l.headed = true, true
			if err := writeRow(p.w, l.widths, l.headers, ""); err != nil {
				return err
			}
		}
		colour := ""
		if p.opts.Color {
			colour = eventColour(r.ev.Type)
		}
		n := len(l.headers)
		if err := writeRow(p.w, l.widths, cells[:n], colour); err != nil {
			return err
		}
		cells = cells[n:]
	}
	clear(p.pending)
	p.pending = p.pending[:0]
	return p.w.Flush()
}

// fit grows the widths of the pending rows' layouts to hold their cells
// (cells holds them row after row) and the headers still to print, then
// shares the leading widths among those layouts, so that the kinds of one
// flush (the initial lists) line up too.
func (p *tablePrinter) fit(cells []string) {
	for _, r := range p.pending {
		n := len(r.l.headers)
		if !p.opts.NoHeaders && !r.l.headed {
			r.l.widths.fit(r.l.headers)
		}
		r.l.widths.fit(cells[:n])
		cells = cells[n:]
	}
	for range 2 { // the first pass finds the widest, the second widens all
		for _, r := range p.pending {
			p.shareLead(r.l)
		}
	}
}

// shareLead widens l's leading columns (EVENT, NAMESPACE, NAME) to the
// widest any kind has needed, and records l's, so that rows of every kind
// start aligned. The last column of a row is never padded, so it is left out.
func (p *tablePrinter) shareLead(l *layout) {
	for i := 0; i < l.lead && i < len(l.widths); i++ {
		h := l.headers[i]
		w := max(l.widths[i], p.lead[h])
		l.widths[i], p.lead[h] = w, w
	}
}
