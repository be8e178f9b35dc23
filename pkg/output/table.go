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
	for rest := p.pending; len(rest) > 0; {
		n := 1
		for n < len(rest) && rest[n].l == rest[0].l {
			n++
		}
		if err := p.printRun(rest[0].l, rest[:n], showKinds, now); err != nil {
			return err
		}
		rest = rest[n:]
	}
	clear(p.pending)
	p.pending = p.pending[:0]
	return p.w.Flush()
}

// printRun prints rows of one layout: its header first if it was never
// printed.
func (p *tablePrinter) printRun(l *layout, rows []pendingRow, showKinds bool, now time.Time) error {
	n := len(l.headers)
	cells := p.cells[:0]
	for _, r := range rows {
		cells = l.appendRow(cells, r.ev, showKinds, now)
	}
	defer func() { clear(cells); p.cells = cells[:0] }()

	header := !p.opts.NoHeaders && !l.headed
	if header {
		l.widths.fit(l.headers)
	}
	for i := 0; i < len(cells); i += n {
		l.widths.fit(cells[i : i+n])
	}
	p.shareLead(l)
	if header {
		if p.headed {
			p.w.WriteString("\n")
		}
		p.headed, l.headed = true, true
		if err := writeRow(p.w, l.widths, l.headers, ""); err != nil {
			return err
		}
	}
	for i, r := range rows {
		colour := ""
		if p.opts.Color {
			colour = eventColour(r.ev.Type)
		}
		if err := writeRow(p.w, l.widths, cells[i*n:(i+1)*n], colour); err != nil {
			return err
		}
	}
	return nil
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
