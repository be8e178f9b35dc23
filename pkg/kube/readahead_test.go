package kube

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadAhead: what is read through readAhead is the body, errors
// included, and Close stops its goroutine however far it got (the package's
// TestMain checks for leaked goroutines).
func TestReadAhead(t *testing.T) {
	body := strings.Repeat("0123456789", 50000)
	ra := newReadAhead(io.NopCloser(iotest.HalfReader(strings.NewReader(body))))
	got, err := io.ReadAll(ra)
	if err != nil || string(got) != body {
		t.Fatalf("read %d bytes, %v; want the %d of the body", len(got), err, len(body))
	}
	if err := ra.Close(); err != nil {
		t.Fatal(err)
	}

	boom := errors.New("boom")
	ra = newReadAhead(io.NopCloser(io.MultiReader(strings.NewReader("abc"), iotest.ErrReader(boom))))
	if got, err := io.ReadAll(ra); string(got) != "abc" || !errors.Is(err, boom) {
		t.Errorf("read %q, %v; want abc then %v", got, err, boom)
	}
	ra.Close()

	blocked := &closeUnblocks{closed: make(chan struct{})}
	ra = newReadAhead(blocked)
	if err := ra.Close(); err != nil { // the goroutine is blocked in Read
		t.Fatal(err)
	}
}

// closeUnblocks is a body whose Read blocks until Close, as a network
// body does.
type closeUnblocks struct{ closed chan struct{} }

func (b *closeUnblocks) Read([]byte) (int, error) {
	<-b.closed
	return 0, io.ErrClosedPipe
}

func (b *closeUnblocks) Close() error {
	close(b.closed)
	return nil
}
