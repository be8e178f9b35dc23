package codec

import (
	"encoding/binary"
	"sync"

	"github.com/klauspost/compress/s2"
)

// appendDelta appends to dst doc as an s2 block whose dictionary is prev
// (what dictionary(prev).Decode reads back), made by a matcher of our
// own: s2's dictionary encoder builds and zeroes 96 KiB of hash tables
// for each dictionary, most of what encoding a revision cost when each
// object's previous JSON is a dictionary used once (BenchmarkDelta, a
// 1 KiB ConfigMap three letters apart: s2 12.1 us and 32 KiB allocated,
// this one 0.47 us and none, 33 and 34 bytes). It finds in doc the runs
// prev holds, first where the last run's alignment says (an edit that
// keeps the length), else, past alignedEdit, by a hash of 8 bytes, and
// emits them as copies from the dictionary, the bytes between as
// literals. Where s2 skips ahead through literals it finds the run after
// each edit: the bench's edits (four letters of a 1 KiB payload each) are
// 68-byte deltas instead of 137, the history 217 bytes per revision
// instead of 291. ok is false where it does not apply (prev not a
// dictionary, doc past the offsets a dictionary's copies reach).
func appendDelta(dst, prev, doc []byte) (out []byte, ok bool) {
	if len(prev) < s2.MinDictSize || len(prev) > s2.MaxDictSize || len(doc) > s2.MaxDictSrcOffset || len(doc) < 8 {
		return dst, false
	}
	t := deltaTables.Get().(*deltaTable)
	defer deltaTables.Put(t)
	dst = binary.AppendUvarint(dst, uint64(len(doc)))
	var (
		emit   int  // doc[emit:] is not in dst yet
		at     int  // where the last copy ended, in doc and in prev
		atDict int  // (at first, the start of both: objects begin alike)
		bits   uint // the table's, once prev is indexed
	)
	for s := 0; s+8 <= len(doc); {
		c := -1
		if s-at+atDict+8 <= len(prev) && load64(prev, s-at+atDict) == load64(doc, s) {
			c = s - at + atDict // the alignment of the last run
		} else if s-emit >= alignedEdit {
			if bits == 0 {
				bits = t.index(prev)
			}
			if i := int(t.pos[hash8(load64(doc, s), bits)]) - 1; i >= 0 && load64(prev, i) == load64(doc, s) {
				c = i
			}
		}
		if c < 0 {
			s++
			continue
		}
		for s > emit && c > 0 && prev[c-1] == doc[s-1] { // back over the bytes before that match
			s, c = s-1, c-1
		}
		n := commonPrefix(prev[c:], doc[s:])
		dst = appendLiteral(dst, doc[emit:s])
		dst = appendCopy(dst, len(prev)-c+s, n)
		s += n
		emit, at, atDict = s, s, c+n
	}
	return appendLiteral(dst, doc[emit:]), true
}

// alignedEdit is how far past a run the matcher looks for the next one
// at the run's alignment alone, before it looks anywhere in prev (by
// hash): an edit that keeps the length (a resourceVersion, a time, a few
// letters) ends within it, and a revision made only of such edits never
// indexes prev, most of what a delta cost (BenchmarkDelta: 2.2 us to
// 0.47 us, the same 34 bytes; TestEditedConfigMapSize's history alike).
const alignedEdit = 16

// deltaTable maps the hash of 8 bytes of a dictionary to their position
// plus one (0: none), reused between calls.
type deltaTable struct {
	pos [1 << maxDeltaBits]uint16
}

const maxDeltaBits = 14

var deltaTables = sync.Pool{New: func() any { return new(deltaTable) }}

// index fills the table with prev's positions, in a table of about
// len(prev) entries, and returns its bits.
func (t *deltaTable) index(prev []byte) uint {
	bits := uint(8)
	for bits < maxDeltaBits && 1<<bits < len(prev) {
		bits++
	}
	clear(t.pos[:1<<bits])
	for i := len(prev) - 8; i >= 0; i-- { // the first of equal runs wins
		t.pos[hash8(load64(prev, i), bits)] = uint16(i + 1)
	}
	return bits
}

func hash8(v uint64, bits uint) uint32 {
	return uint32((v * 0xcf1bbcdcb7a56463) >> (64 - bits))
}

func load64(b []byte, i int) uint64 { return binary.LittleEndian.Uint64(b[i:]) }

func commonPrefix(a, b []byte) int {
	n := 0
	for n+8 <= len(a) && n+8 <= len(b) && load64(a, n) == load64(b, n) {
		n += 8
	}
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// The tags of an s2 block (s2's own encoder's format).
const (
	tagLiteral = 0x00
	tagCopy1   = 0x01
	tagCopy2   = 0x02
	tagCopy4   = 0x03
)

// appendLiteral appends lit as literal elements.
func appendLiteral(dst, lit []byte) []byte {
	if len(lit) == 0 {
		return dst
	}
	switch n := uint32(len(lit) - 1); {
	case n < 60:
		dst = append(dst, byte(n)<<2|tagLiteral)
	case n < 1<<8:
		dst = append(dst, 60<<2|tagLiteral, byte(n))
	case n < 1<<16:
		dst = append(dst, 61<<2|tagLiteral, byte(n), byte(n>>8))
	case n < 1<<24:
		dst = append(dst, 62<<2|tagLiteral, byte(n), byte(n>>8), byte(n>>16))
	default:
		dst = append(dst, 63<<2|tagLiteral, byte(n), byte(n>>8), byte(n>>16), byte(n>>24))
	}
	return append(dst, lit...)
}

// appendCopy appends a copy of n bytes (n >= 8) from offset back (into
// the dictionary when past what was decoded): one copy element of up to
// 64 bytes, the rest as repeats of its offset.
func appendCopy(dst []byte, offset, n int) []byte {
	if offset < 2048 && n <= 11 {
		return append(dst, byte(offset>>8)<<5|byte(n-4)<<2|tagCopy1, byte(offset))
	}
	first := min(n, 64)
	if rest := n - first; rest > 0 && rest < 4 {
		first = n - 4 // a repeat is at least 4 bytes
	}
	dst = appendCopyN(dst, offset, first)
	if rest := n - first; rest > 0 {
		dst = appendRepeat(dst, rest)
	}
	return dst
}

// appendCopyN appends one copy element of n bytes (1 to 64).
func appendCopyN(dst []byte, offset, n int) []byte {
	if offset < 1<<16 {
		return append(dst, byte(n-1)<<2|tagCopy2, byte(offset), byte(offset>>8))
	}
	return append(dst, byte(n-1)<<2|tagCopy4, byte(offset), byte(offset>>8), byte(offset>>16), byte(offset>>24))
}

// appendRepeat appends a copy of n bytes (n >= 4) at the last offset.
func appendRepeat(dst []byte, n int) []byte {
	switch {
	case n <= 8:
		return append(dst, byte(n-4)<<2|tagCopy1, 0)
	case n < 264:
		return append(dst, 5<<2|tagCopy1, 0, byte(n-8))
	case n < 65536+260:
		v := n - 260
		return append(dst, 6<<2|tagCopy1, 0, byte(v), byte(v>>8))
	default:
		v := n - 65540
		return append(dst, 7<<2|tagCopy1, 0, byte(v), byte(v>>8), byte(v>>16))
	}
}
