package controlplane

import (
	"bytes"
	"io"
	"os"
	"sync"
)

// tailFile returns at most the last maxLines lines and maxBytes bytes of the
// file at path, or a note saying why it cannot.
func tailFile(path string, maxLines, maxBytes int) string {
	f, err := os.Open(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	off := fi.Size() - int64(maxBytes)
	if off < 0 {
		off = 0
	}
	buf := make([]byte, fi.Size()-off)
	n, _ := f.ReadAt(buf, off)
	return tailLines(buf[:n], maxLines, off > 0)
}

// tailLines returns the last maxLines lines of b; truncated says b starts in
// the middle of a line, which is then dropped.
func tailLines(b []byte, maxLines int, truncated bool) string {
	b = bytes.TrimRight(b, "\n")
	if truncated {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	lines := bytes.Split(b, []byte("\n"))
	if len(lines) > maxLines {
		lines = lines[len(lines)-maxLines:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

// lockedWriter serialises writes of several components to one writer.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// prefixWriter writes whole lines, each prefixed, to w; it buffers a partial
// last line until its newline arrives. One per component: not safe for
// concurrent use (exec copies each child's output from one goroutine).
type prefixWriter struct {
	w      io.Writer
	prefix []byte
	buf    []byte
}

func newPrefixWriter(w io.Writer, prefix string) *prefixWriter {
	return &prefixWriter{w: w, prefix: []byte(prefix)}
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.buf = append(p.buf, b...)
	var out []byte
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			break
		}
		out = append(out, p.prefix...)
		out = append(out, p.buf[:i+1]...)
		p.buf = p.buf[i+1:]
	}
	p.buf = append(p.buf[:0:0], p.buf...) // drop consumed lines' memory
	if len(out) > 0 {
		if _, err := p.w.Write(out); err != nil {
			return 0, err
		}
	}
	return len(b), nil
}
