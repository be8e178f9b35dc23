package history

import (
	"encoding/binary"
	"fmt"

	"github.com/klauspost/compress/s2"
)

// A checkpoint is a resource's whole state at one resourceVersion, kept
// beside its revisions so that a state is read in a few sequential rows
// instead of one row per object (StateAt, and so a daemon's warm restart
// and get --at): the checkpoint at or before the resourceVersion asked,
// then the revisions after it. Its parts are s2 blocks of up to partSize
// bytes of entries, each entry an object's latest revision then: its
// namespace, name, resourceVersion, time, manager, JSON and cells.
//
// The measurement: BenchmarkStateAt (100,000 ConfigMaps) reads a state
// from its checkpoint in a fraction of what the GROUP BY over every
// revision takes (the numbers are in the CHANGELOG's and the bench's).
const partSize = 4 << 20

// appendEntry appends r to a part.
func appendEntry(b []byte, r *Revision) []byte {
	for _, s := range []string{r.Namespace, r.Name, r.Manager} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendUvarint(b, r.RV)
	b = binary.AppendVarint(b, millis(r.Time))
	b = binary.AppendUvarint(b, uint64(len(r.Object)))
	b = append(b, r.Object...)
	if r.Cells == nil {
		return binary.AppendUvarint(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(r.Cells))+1)
	return append(b, r.Cells...)
}

// parts packs a state into parts as its entries come.
type parts struct {
	buf  []byte
	done [][]byte
}

func (p *parts) add(r *Revision) {
	if p.buf = appendEntry(p.buf, r); len(p.buf) >= partSize {
		p.flush()
	}
}

// flush ends the part being packed, if any.
func (p *parts) flush() {
	if len(p.buf) > 0 {
		p.done = append(p.done, s2.EncodeBetter(nil, p.buf))
		p.buf = p.buf[:0]
	}
}

// errCorruptCheckpoint is a checkpoint part that does not decode.
var errCorruptCheckpoint = fmt.Errorf("%w: a checkpoint", errCorruptBlob)

// decodePart appends the revisions of a part to revs; their objects and
// cells share one buffer, buf when large enough, returned.
func decodePart(revs []Revision, buf, part []byte) ([]Revision, []byte, error) {
	b, err := s2.Decode(buf[:cap(buf)], part)
	if err != nil {
		return revs, buf, fmt.Errorf("%w: %w", errCorruptCheckpoint, err)
	}
	r := reader{b: b}
	for len(r.b) > 0 && r.err == nil {
		rev := Revision{Op: Added, Namespace: string(r.bytes()), Name: string(r.bytes()), Manager: string(r.bytes())}
		rev.RV = r.uvarint()
		rev.Time = fromMillis(r.varint())
		rev.Object = r.bytes()
		if n := r.uvarint(); n > 0 {
			rev.Cells = r.take(n - 1)
		}
		revs = append(revs, rev)
	}
	return revs, b, r.err
}

// reader reads a part's entries; its first error stays.
type reader struct {
	b   []byte
	err error
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) bytes() []byte { return r.take(r.uvarint()) }

func (r *reader) take(n uint64) []byte {
	if r.err != nil || n > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) fail() {
	if r.err == nil {
		r.err = errCorruptCheckpoint
	}
	r.b = nil
}
