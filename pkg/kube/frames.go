package kube

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/tidwall/gjson"
)

// maxFrame bounds one watch event: far above the API server's request
// limit (3 MiB objects), so that a broken stream cannot take all memory.
const maxFrame = 64 << 20

// errFrameTooLarge is returned for an event beyond maxFrame.
var errFrameTooLarge = errors.New("watch event larger than 64 MiB")

// frames splits a JSON watch stream into events. The API server writes one
// compact JSON value per line, so a frame is found with one IndexByte
// instead of a tokenizer pass over every byte (encoding/json's Decoder was
// the largest cost of a sync). Any other framing of JSON values (values back
// to back, pretty-printed ones) is split by a small scanner that tracks
// nesting. Every frame is validated before it is returned.
type frames struct {
	r          io.Reader
	buf        []byte
	start, end int // buf[start:end] is read but not yet returned
	err        error
	scan       valueScanner // the slow path's progress into buf[start:end]
}

func newFrames(r io.Reader) *frames {
	return &frames{r: r, buf: make([]byte, 64<<10)}
}

// next returns the next frame, valid until the following call, or io.EOF
// at the end of a stream that ended between frames.
func (f *frames) next() ([]byte, error) {
	for {
		for f.start < f.end && isSpace(f.buf[f.start]) {
			f.start++
		}
		if frame, ok, err := f.split(); ok || err != nil {
			return frame, err
		}
		if f.err != nil {
			if f.start < f.end && f.err == io.EOF {
				return nil, fmt.Errorf("stream ended inside an event: %w", io.ErrUnexpectedEOF)
			}
			return nil, f.err
		}
		if err := f.fill(); err != nil {
			return nil, err
		}
	}
}

// split takes the next whole frame out of the buffer, if there is one.
func (f *frames) split() ([]byte, bool, error) {
	pending := f.buf[f.start:f.end]
	if len(pending) == 0 {
		return nil, false, nil
	}
	if f.scan.pos == 0 {
		if i := bytes.IndexByte(pending, '\n'); i >= 0 {
			if line := bytes.TrimRight(pending[:i], " \t\r"); gjson.ValidBytes(line) {
				f.start += i + 1
				return line, true, nil
			}
		}
	}
	n, ok := f.scan.advance(pending)
	if !ok {
		return nil, false, nil
	}
	f.scan = valueScanner{}
	f.start += n
	frame := pending[:n]
	if !gjson.ValidBytes(frame) {
		return nil, false, fmt.Errorf("malformed watch event: %.60q", frame)
	}
	return frame, true, nil
}

// fill moves the unread bytes to the front of buf, grows it when they
// fill it, and reads once more.
func (f *frames) fill() error {
	n := copy(f.buf, f.buf[f.start:f.end])
	f.start, f.end = 0, n
	if n == len(f.buf) {
		if n >= maxFrame {
			return errFrameTooLarge
		}
		f.buf = append(f.buf, make([]byte, n)...)
	}
	m, err := f.r.Read(f.buf[f.end:])
	f.end += m
	f.err = err
	return nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

// valueScanner finds where one JSON object or array ends, resuming where it
// stopped when more bytes arrive. It does not validate: the frame is
// validated once whole.
type valueScanner struct {
	pos   int // bytes of the value scanned so far
	depth int
	inStr bool
}

// advance scans b (the value from its first byte) from where it stopped,
// and returns the value's length once it is whole. A scalar at the top
// level ends at the next whitespace.
func (s *valueScanner) advance(b []byte) (int, bool) {
	if s.pos == 0 && b[0] != '{' && b[0] != '[' {
		if i := bytes.IndexAny(b, " \t\r\n"); i >= 0 {
			return i, true
		}
		return 0, false
	}
	for s.pos < len(b) {
		if s.inStr {
			i := bytes.IndexAny(b[s.pos:], `"\`)
			if i < 0 {
				s.pos = len(b)
				break
			}
			s.pos += i
			if b[s.pos] == '\\' {
				if s.pos+1 >= len(b) {
					break // the escaped byte has not arrived
				}
				s.pos += 2
				continue
			}
			s.inStr = false
			s.pos++
			continue
		}
		i := bytes.IndexAny(b[s.pos:], `{}[]"`)
		if i < 0 {
			s.pos = len(b)
			break
		}
		s.pos += i
		switch b[s.pos] {
		case '"':
			s.inStr = true
		case '{', '[':
			s.depth++
		default:
			s.depth--
		}
		s.pos++
		if s.depth == 0 {
			return s.pos, true
		}
	}
	return 0, false
}
