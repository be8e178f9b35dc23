package codec

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/klauspost/compress/s2"
)

// PartSize is how many bytes of entries a checkpoint part holds before it
// is closed (one entry may take it past).
const PartSize = 4 << 20

// Entry is what a checkpoint keeps of an object's latest revision.
type Entry struct {
	Namespace, Name, Manager string
	RV                       uint64
	Time                     time.Time // kept to the millisecond
	Object                   []byte
	Cells                    []byte // nil: none; kept apart from empty
}

// AppendEntry appends e to a part's bytes.
func AppendEntry(b []byte, e *Entry) []byte {
	for _, s := range []string{e.Namespace, e.Name, e.Manager} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendUvarint(b, e.RV)
	b = binary.AppendVarint(b, e.Time.UnixMilli())
	b = binary.AppendUvarint(b, uint64(len(e.Object)))
	b = append(b, e.Object...)
	if e.Cells == nil {
		return binary.AppendUvarint(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(e.Cells))+1)
	return append(b, e.Cells...)
}

// Parts packs a state into parts as its entries come: Add each, then
// Flush; Done holds the parts, each an s2 block.
type Parts struct {
	buf  []byte
	Done [][]byte
}

// Add appends e to the part being packed, closing it at PartSize.
func (p *Parts) Add(e *Entry) {
	if p.buf = AppendEntry(p.buf, e); len(p.buf) >= PartSize {
		p.Flush()
	}
}

// Flush ends the part being packed, if any.
func (p *Parts) Flush() {
	if len(p.buf) > 0 {
		p.Done = append(p.Done, s2.EncodeBetter(nil, p.buf))
		p.buf = p.buf[:0]
	}
}

// errCorruptPart is a checkpoint part that does not decode.
var errCorruptPart = fmt.Errorf("%w: a checkpoint", ErrCorrupt)

// DecodePart appends the entries of a part to es; their objects and cells
// share one buffer, buf when large enough, returned.
func DecodePart(es []Entry, buf, part []byte) ([]Entry, []byte, error) {
	if err := checkLen(part); err != nil {
		return es, buf, fmt.Errorf("%w: %w", errCorruptPart, err)
	}
	b, err := s2.Decode(buf[:cap(buf)], part)
	if err != nil {
		return es, buf, fmt.Errorf("%w: %w", errCorruptPart, err)
	}
	r := reader{b: b}
	for len(r.b) > 0 && r.err == nil {
		e := Entry{Namespace: string(r.bytes()), Name: string(r.bytes()), Manager: string(r.bytes())}
		e.RV = r.uvarint()
		e.Time = time.UnixMilli(r.varint()).UTC()
		e.Object = r.bytes()
		if n := r.uvarint(); n > 0 {
			e.Cells = r.take(n - 1)
		}
		es = append(es, e)
	}
	return es, b, r.err
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
		r.err = errCorruptPart
	}
	r.b = nil
}
