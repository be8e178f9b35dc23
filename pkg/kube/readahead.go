package kube

import "io"

// readAhead reads a response body in a goroutine of its own, one buffer
// ahead of its reader, and unzips it if it is gzip (see inflate): the
// transport's work behind Read (HTTP/2 frames) and gunzip, which is a
// quarter of a LIST's client CPU, overlap with decoding the previous
// buffer. It is for LIST answers; a watch, mostly idle, reads
// its body directly.
type readAhead struct {
	body io.ReadCloser
	pr   *io.PipeReader
	done chan struct{}
}

func newReadAhead(body io.ReadCloser) *readAhead {
	pr, pw := io.Pipe()
	ra := &readAhead{body: body, pr: pr, done: make(chan struct{})}
	go func() {
		defer close(ra.done)
		r, err := inflate(body)
		if err == nil {
			_, err = io.CopyBuffer(pw, r, make([]byte, 64<<10))
		}
		pw.CloseWithError(err) // nil: the reader sees io.EOF
	}()
	return ra
}

func (ra *readAhead) Read(p []byte) (int, error) { return ra.pr.Read(p) }

// Close stops the reading goroutine and waits for it.
func (ra *readAhead) Close() error {
	err := ra.body.Close()
	ra.pr.Close()
	<-ra.done
	return err
}
