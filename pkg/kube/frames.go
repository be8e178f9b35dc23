package kube

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	segjson "github.com/segmentio/encoding/json"
)

// maxValue bounds one JSON value read from a stream (a watch event, a list
// item): far above the API server's request limit (3 MiB objects), so that
// a broken stream cannot take all memory.
const maxValue = 64 << 20

// errValueTooLarge is returned for a value beyond maxValue.
var errValueTooLarge = errors.New("JSON value larger than 64 MiB")

// reader buffers a JSON stream and hands out values that stay valid until
// the next read.
type reader struct {
	r          io.Reader
	buf        []byte
	start, end int // buf[start:end] is read but not yet consumed
	err        error
	scan       valueScanner // progress into the value at buf[start:]
}

func newReader(r io.Reader) *reader {
	return &reader{r: r, buf: make([]byte, 64<<10)}
}

// fill moves the unconsumed bytes to the front of buf, grows it when they
// fill it, and reads once more. It reports the read error, if any.
func (r *reader) fill() error {
	if r.err != nil {
		return r.err
	}
	n := copy(r.buf, r.buf[r.start:r.end])
	r.start, r.end = 0, n
	if n == len(r.buf) {
		if n >= maxValue {
			return errValueTooLarge
		}
		r.buf = append(r.buf, make([]byte, n)...)
	}
	m, err := r.r.Read(r.buf[r.end:])
	r.end += m
	r.err = err
	return nil
}

// unexpectedEOF turns io.EOF inside a value into io.ErrUnexpectedEOF.
func unexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// peek skips whitespace and returns the next byte without consuming it.
func (r *reader) peek() (byte, error) {
	for {
		for r.start < r.end && isSpace(r.buf[r.start]) {
			r.start++
		}
		if r.start < r.end {
			return r.buf[r.start], nil
		}
		if err := r.fill(); err != nil {
			return 0, err
		}
	}
}

// expect consumes the next non-whitespace byte, which must be one of set.
func (r *reader) expect(set string) (byte, error) {
	c, err := r.peek()
	if err != nil {
		return 0, unexpectedEOF(err)
	}
	if strings.IndexByte(set, c) < 0 {
		return 0, fmt.Errorf("malformed JSON: %q where one of %q was expected", c, set)
	}
	r.start++
	return c, nil
}

// value consumes the next JSON value and returns it, validated.
func (r *reader) value() ([]byte, error) {
	if _, err := r.peek(); err != nil {
		return nil, unexpectedEOF(err)
	}
	for {
		if n, ok := r.scan.advance(r.buf[r.start:r.end], r.err != nil); ok {
			return r.take(n)
		}
		if err := r.fill(); err != nil {
			return nil, unexpectedEOF(err)
		}
	}
}

// take consumes the n bytes of a value the scanner delimited.
func (r *reader) take(n int) ([]byte, error) {
	v := r.buf[r.start : r.start+n]
	r.start += n
	r.scan = valueScanner{}
	if !valid(v) {
		return nil, fmt.Errorf("malformed JSON: %.60q", v)
	}
	return v, nil
}

// valid says whether b is one JSON value. segmentio/encoding's Valid reads
// 8 bytes at a time: every list item and watch event is validated before
// it is decoded, and it took a third of decoding a ConfigMap of 1 KiB
// with gjson.ValidBytes (BenchmarkDecodeList 3.76 -> 2.55 ms per 1,000,
// BenchmarkDecodeEvent about 4.3 -> 2.8 us). It accepts what encoding/json
// accepts (FuzzFrames, FuzzDecodeList).
func valid(b []byte) bool { return segjson.Valid(b) }

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

// frames splits a JSON watch stream into events. The API server writes one
// compact JSON value per line, so a frame is found with one IndexByte
// instead of a tokenizer pass over every byte (encoding/json's Decoder was
// the largest cost of a sync). Any other framing of JSON values (values back
// to back, pretty-printed ones) is split by the scanner that tracks nesting.
// Every frame is validated before it is returned.
type frames struct{ *reader }

func newFrames(r io.Reader) frames { return frames{newReader(r)} }

// next returns the next frame, valid until the following call, or io.EOF
// at the end of a stream that ended between frames.
func (f frames) next() ([]byte, error) {
	if _, err := f.peek(); err != nil {
		return nil, err
	}
	if f.scan.pos == 0 {
		pending := f.buf[f.start:f.end]
		if i := bytes.IndexByte(pending, '\n'); i >= 0 {
			if line := bytes.TrimRight(pending[:i], " \t\r"); valid(line) {
				f.start += i + 1
				return line, nil
			}
		}
	}
	v, err := f.value()
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("stream ended inside an event: %w", err)
	}
	return v, err
}

// structural marks the bytes outside strings that valueScanner stops at.
var structural = [256]bool{'{': true, '}': true, '[': true, ']': true, '"': true}

// stringEnd scans a string's contents from b[i] (after its opening quote
// and any escape) and returns the position after its closing quote and
// true, or the position to resume from and false when b ends first. It
// finds quotes and backslashes with bytes.IndexByte, which is vectorised:
// most of an object's bytes are in strings (BenchmarkScanValue). The next
// quote found is kept across escapes before it, so that a long string of
// many escapes (a file's lines, \n) is crossed once, not once per escape.
func stringEnd(b []byte, i int) (int, bool) {
	q := -1 // the next quote at or after i; len(b) when there is none
	for {
		if q < i {
			if n := bytes.IndexByte(b[i:], '"'); n >= 0 {
				q = i + n
			} else {
				q = len(b)
			}
		}
		e := bytes.IndexByte(b[i:q], '\\')
		if e < 0 {
			if q == len(b) {
				return len(b), false
			}
			return q + 1, true
		}
		if i+e+1 >= len(b) {
			return i + e, false // the escaped byte has not arrived
		}
		i += e + 2
	}
}

// valueScanner finds where one JSON value ends, resuming where it stopped
// when more bytes arrive. It does not validate: the value is validated once
// whole.
type valueScanner struct {
	pos   int // bytes of the value scanned so far
	depth int
	inStr bool
}

// advance scans b (the value from its first byte) from where it stopped,
// and returns the value's length once it is whole. atEOF says no more bytes
// will come, which ends a number or literal at the end of b.
func (s *valueScanner) advance(b []byte, atEOF bool) (int, bool) {
	if s.pos == 0 && len(b) > 0 {
		switch b[0] {
		case '{', '[':
		case '"':
			s.inStr, s.pos = true, 1
		default: // a number or a literal ends at a delimiter
			if i := bytes.IndexAny(b, " \t\r\n,]}"); i >= 0 {
				return i, true
			}
			return len(b), atEOF && len(b) > 0
		}
	}
	for s.pos < len(b) {
		if s.inStr {
			end, ok := stringEnd(b, s.pos)
			s.pos = end
			if !ok {
				break // the string's end has not arrived
			}
			s.inStr = false
			if s.depth == 0 {
				return s.pos, true // a string value
			}
			continue
		}
		i := s.pos
		for i < len(b) && !structural[b[i]] {
			i++
		}
		if i == len(b) {
			s.pos = len(b)
			break
		}
		s.pos = i + 1
		switch b[i] {
		case '"':
			s.inStr = true
			continue
		case '{', '[':
			s.depth++
		default:
			s.depth--
		}
		if s.depth == 0 {
			return s.pos, true
		}
	}
	return 0, false
}
