package contexts

import (
	"bytes"
	"io"
	"sync"
)

// Prefixer writes whole lines to one writer for several writers (the
// contexts of a command), each line of each prefixed with its name, so
// that what they report concurrently reads line by line.
type Prefixer struct {
	mu sync.Mutex
	w  io.Writer
}

// NewPrefixer writes to w.
func NewPrefixer(w io.Writer) *Prefixer { return &Prefixer{w: w} }

// Writer is a writer whose lines go to the Prefixer's writer with prefix
// before each; a line is written once it is whole, and a last one without
// a newline when Flush is called.
func (p *Prefixer) Writer(prefix string) *PrefixWriter {
	return &PrefixWriter{p: p, prefix: []byte(prefix)}
}

// PrefixWriter is one of a Prefixer's writers.
type PrefixWriter struct {
	p      *Prefixer
	prefix []byte
	mu     sync.Mutex
	buf    []byte
}

func (w *PrefixWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, b...)
	end := bytes.LastIndexByte(w.buf, '\n')
	if end < 0 {
		return len(b), nil
	}
	err := w.write(w.buf[:end+1])
	w.buf = append(w.buf[:0], w.buf[end+1:]...)
	return len(b), err
}

// Flush writes a last line that has no newline yet.
func (w *PrefixWriter) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) == 0 {
		return nil
	}
	err := w.write(append(w.buf, '\n'))
	w.buf = w.buf[:0]
	return err
}

func (w *PrefixWriter) write(lines []byte) error {
	var out []byte
	for line := range bytes.SplitAfterSeq(lines, []byte("\n")) {
		if len(line) > 0 {
			out = append(append(out, w.prefix...), line...)
		}
	}
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	_, err := w.p.w.Write(out)
	return err
}
