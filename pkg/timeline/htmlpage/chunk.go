package htmlpage

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/timeline"
)

// The page's data, chunk by chunk. Each chunk is two script elements of
// gzip'ed JSON in base64:
//
//	<script type="application/x-gzip-base64" class="revs" id="revs-N">
//	  [lane, lane, ...] where a lane is its revisions, oldest first, from
//	  the last one before the span (the base of the first diff) to the
//	  last in it: [rv, t, op, manager, since, object], object the JSON
//	  without noise (output.NoisePaths, quiet.go), t and since (0: none) Unix ms
//	  relative to meta.since, op history.Op's number.
//	<script type="application/x-gzip-base64" class="lanes" data-chunk="N">
//	  [{"c": context, "k": kind (indexes in meta), "ns", "n": name,
//	    "m": marks}, ...], a mark [t, type, rv, since] or for a Warning
//	  [t, type, rv, since, reason, message, event name]; the lane's
//	  revisions are the same index of revs-N.
//
// The revisions are streamed through gzip and base64 into the page as
// each lane is read; the marks of a chunk's lanes are kept until it ends.

// data writes the chunks.
type data struct {
	w        *bufio.Writer
	since    int64 // the span, Unix ms
	untilMs  int64
	limit    int
	stats    Stats
	kinds    map[string]int
	contexts map[string]int

	revs     *gzip.Writer // nil between chunks
	b64      io.WriteCloser
	revBytes int
	lanes    []byte // the chunk's lanes' JSON, "[" and lanes so far
	buf      []byte // a lane's revisions' JSON, reused
	n        int    // lanes in the chunk
}

func newData(w *bufio.Writer, m meta, limit int) *data {
	d := &data{w: w, since: m.Since, untilMs: m.Until, limit: limit, kinds: map[string]int{}, contexts: map[string]int{}}
	for i, k := range m.Kinds {
		d.kinds[k.Resource] = i
	}
	for i, c := range m.Contexts {
		d.contexts[c] = i
	}
	return d
}

// lane adds l and its revisions, read from s, to the chunk.
func (d *data) lane(ctx context.Context, s history.Record, l *timeline.Lane) error {
	revs, err := s.Revisions(ctx, l.Kind.Resource, l.Namespace, l.Name)
	if err != nil && !errors.Is(err, history.ErrNotRecorded) {
		return fmt.Errorf("reading the revisions of %s %s/%s: %w", l.Kind.Name, l.Namespace, l.Name, err)
	}
	if d.revs == nil {
		if err := d.open(); err != nil {
			return err
		}
	}
	buf, n, err := d.revisions(revs)
	if err != nil {
		return fmt.Errorf("%s %s/%s: %w", l.Kind.Name, l.Namespace, l.Name, err)
	}
	if d.n > 0 {
		d.revs.Write([]byte{','})
		d.lanes = append(d.lanes, ',')
	}
	if _, err := d.revs.Write(buf); err != nil {
		return fmt.Errorf("writing the page: %w", err)
	}
	d.lanes = d.appendLane(d.lanes, l)
	d.n++
	d.revBytes += len(buf)
	d.stats.Lanes++
	d.stats.Marks += len(l.Marks)
	d.stats.Revisions += n
	if d.revBytes >= d.limit {
		return d.closeChunk()
	}
	return nil
}

// revisions is the JSON of the revisions of a lane in the span (and of
// the one before it), and how many it holds.
func (d *data) revisions(revs []history.Revision) ([]byte, int, error) {
	lo, hi := 0, len(revs)
	for lo < hi && revs[hi-1].Time.UnixMilli() > d.untilMs {
		hi--
	}
	for lo+1 < hi && revs[lo+1].Time.UnixMilli() < d.since {
		lo++
	}
	b := append(d.buf[:0], '[')
	for i, r := range revs[lo:hi] {
		if i > 0 {
			b = append(b, ',')
		}
		if !gjson.ValidBytes(r.Object) {
			return nil, 0, fmt.Errorf("resourceVersion %d: the recorded object is not JSON", r.RV)
		}
		b = append(b, '[')
		b = strconv.AppendUint(b, r.RV, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, r.Time.UnixMilli()-d.since, 10)
		b = append(b, ',')
		b = strconv.AppendUint(b, uint64(r.Op), 10)
		b = append(b, ',')
		b = appendString(b, r.Manager)
		b = append(b, ',')
		b = d.appendSince(b, r.Since.IsZero(), r.Since.UnixMilli())
		b = append(b, ',')
		b = appendQuiet(b, r.Object)
		b = append(b, ']')
	}
	d.buf = append(b, ']')
	return d.buf, hi - lo, nil
}

// appendLane appends a lane's JSON (its marks) to b.
func (d *data) appendLane(b []byte, l *timeline.Lane) []byte {
	b = append(b, `{"c":`...)
	b = strconv.AppendInt(b, int64(d.contexts[l.Context]), 10)
	b = append(b, `,"k":`...)
	b = strconv.AppendInt(b, int64(d.kinds[l.Kind.Resource]), 10)
	b = append(b, `,"ns":`...)
	b = appendString(b, l.Namespace)
	b = append(b, `,"n":`...)
	b = appendString(b, l.Name)
	b = append(b, `,"m":[`...)
	for i, m := range l.Marks {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = strconv.AppendInt(b, m.Time.UnixMilli()-d.since, 10)
		b = append(b, ',')
		b = strconv.AppendUint(b, uint64(m.Type), 10)
		b = append(b, ',')
		b = strconv.AppendUint(b, m.RV, 10)
		b = append(b, ',')
		b = d.appendSince(b, m.Since.IsZero(), m.Since.UnixMilli())
		if e := m.Event; e != nil {
			for _, s := range []string{e.Reason, e.Message, e.Name} {
				b = appendString(append(b, ','), s)
			}
		}
		b = append(b, ']')
	}
	return append(b, "]}"...)
}

// appendSince appends a window's start relative to the span's, 0 when
// none (zero).
func (d *data) appendSince(b []byte, zero bool, ms int64) []byte {
	if zero {
		return append(b, '0')
	}
	if ms == d.since {
		ms++ // 0 says none: a millisecond off, the window's start at the span's
	}
	return strconv.AppendInt(b, ms-d.since, 10)
}

// appendString appends s as a JSON string (<, > and & escaped, as
// everything inside a script element must be).
func appendString(b []byte, s string) []byte {
	j, _ := json.Marshal(s) // a string always marshals
	return append(b, j...)
}

// open starts a chunk: its revisions' script element.
func (d *data) open() error {
	fmt.Fprintf(d.w, `<script type="application/x-gzip-base64" class="revs" id="revs-%d">`, d.stats.Chunks)
	d.b64 = base64.NewEncoder(base64.StdEncoding, d.w)
	var err error
	if d.revs, err = gzip.NewWriterLevel(d.b64, gzip.BestSpeed); err != nil {
		return err
	}
	_, err = d.revs.Write([]byte{'['})
	d.lanes, d.n, d.revBytes = append(d.lanes[:0], '['), 0, 0
	return err
}

// closeChunk ends the chunk's revisions, then writes its lanes.
func (d *data) closeChunk() error {
	d.revs.Write([]byte{']'})
	err := d.revs.Close()
	if err == nil {
		err = d.b64.Close()
	}
	d.w.WriteString("</script>\n")
	fmt.Fprintf(d.w, `<script type="application/x-gzip-base64" class="lanes" data-chunk="%d">`, d.stats.Chunks)
	b64 := base64.NewEncoder(base64.StdEncoding, d.w)
	z, _ := gzip.NewWriterLevel(b64, gzip.BestSpeed) // a valid level: no error
	if err == nil {
		_, err = z.Write(append(d.lanes, ']'))
	}
	if err == nil {
		err = z.Close()
	}
	if err == nil {
		err = b64.Close()
	}
	if _, werr := d.w.WriteString("</script>\n"); err == nil {
		err = werr
	}
	d.revs, d.b64 = nil, nil
	d.stats.Chunks++
	if err != nil {
		return fmt.Errorf("writing the page: %w", err)
	}
	return nil
}

// close ends the last chunk, if one is open.
func (d *data) close() error {
	if d.revs == nil {
		return nil
	}
	return d.closeChunk()
}
