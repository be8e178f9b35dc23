package output

import "bufio"

// pairsHeader heads the last column of the several-kinds table, which holds
// the rest of each kind's printer columns as Name=value pairs.
const pairsHeader = "COLUMNS"

// sharedTable is the table of a stream of several kinds: one header, one
// line per event, whatever the kind, so that every row reads under the one
// header:
//
//	EVENT     NAME                             AGE     COLUMNS
//	APPLIED   configmap/settings               45s     Data=1
//	APPLIED   secret/token                     45s     Type=Opaque Data=1
//	APPLIED   deployment.apps/web              45s     Ready=0/1 Up-to-date=1 Available=0
//
// Its columns are EVENT, NAMESPACE (with AllNamespaces; empty for
// cluster-scoped kinds), NAME as kind/name, AGE (recomputed at each Flush),
// the label columns (-L, --show-labels: the same for every kind, so real
// columns), then COLUMNS: the kind's other printer columns (priority 0 only,
// unless wide) as Name=value pairs in the server's order, an empty value as
// <none>. Widths only grow, as in the table of one kind; NAME and AGE start
// wide enough for most names and ages (typicalName, typicalAge), and NAME
// for the names already printed when a second kind turns up (fitNames).
type sharedTable struct {
	namespace bool     // a NAMESPACE column follows EVENT
	headers   []string // the fixed columns' headers, then pairsHeader
	name      int      // index in headers of NAME (AGE follows it)
	widths    widths
	headed    bool // the header was printed
}

// NAME and AGE are as wide as most names and ages from the start, so that
// the kinds' lists, which come in their own flushes, and rows that come
// later, as objects age, line up under the header whatever their kind.
const (
	typicalName = 30 // "deployment.apps/" and a name of 14
	typicalAge  = 5  // "7d23h": HumanDuration is at most 5 wide under two years
)

func newSharedTable(opts Options) *sharedTable {
	s := &sharedTable{namespace: opts.AllNamespaces, headers: []string{"EVENT"}}
	if opts.Contexts {
		s.headers = append(s.headers, "CONTEXT")
	}
	if s.namespace {
		s.headers = append(s.headers, "NAMESPACE")
	}
	s.name = len(s.headers)
	s.headers = append(s.headers, "NAME", "AGE")
	for _, key := range opts.ColumnLabels {
		s.headers = append(s.headers, labelHeader(key))
	}
	if opts.ShowLabels {
		s.headers = append(s.headers, "LABELS")
	}
	s.headers = append(s.headers, pairsHeader)
	s.widths = make(widths, s.fixed())
	if !opts.NoHeaders {
		s.widths.fitEach(s.headers[:s.fixed()])
	}
	s.widths[s.name] = max(s.widths[s.name], typicalName+cellPadding)
	s.widths[s.name+1] = max(s.widths[s.name+1], typicalAge+cellPadding)
	return s
}

// fitNames widens NAME to hold the kind/name of every name the table of
// one kind l has held, so that when a second kind turns up the first kind's
// objects, which are likely to come again, line up.
func (s *sharedTable) fitNames(l *layout) {
	if l.nameAt >= 0 && l.nameAt < len(l.widths) {
		s.widths[s.name] = max(s.widths[s.name], l.widths[l.nameAt]+len(l.prefix))
	}
}

// fixed is how many cells a row has before its pairs.
func (s *sharedTable) fixed() int { return len(s.headers) - 1 }

// writePairsRow writes the fixed cells padded to ws, then the pairs
// keys[i]=values[i] separated by spaces, then a newline; the last cell
// written is never padded. colour, when not "", is the ANSI colour of the
// first cell.
func writePairsRow(w *bufio.Writer, ws widths, fixed, keys, values []string, colour string) error {
	writeCells(w, ws, fixed, colour, len(values) > 0)
	for i, v := range values {
		if i > 0 {
			w.WriteByte(' ')
		}
		if v == "" {
			v = "<none>"
		}
		w.WriteString(keys[i])
		w.WriteByte('=')
		w.WriteString(v)
	}
	_, err := w.WriteString("\n")
	return err
}
