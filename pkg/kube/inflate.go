package kube

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"

	"github.com/klauspost/compress/gzip"
)

// acceptGzip is set on LIST requests so that the API server's gzip answer
// (it compresses large ones) reaches inflate as it is: net/http unzips
// transparently only when it added the header itself, with the standard
// library, which takes about 40% more CPU than klauspost/compress's gzip
// for a LIST of ConfigMaps (BenchmarkInflate). Watches are not compressed.
const acceptGzip = "gzip"

// identityEncoding takes Accept-Encoding off every request, for a client
// told not to ask for compressed answers (rest.Config.DisableCompression,
// kubectl's --disable-compression): the Client asks for gzip itself (see
// acceptGzip), where net/http would not add it.
type identityEncoding struct{ next http.RoundTripper }

func (t identityEncoding) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Accept-Encoding") != "" {
		req = req.Clone(req.Context())
		req.Header.Del("Accept-Encoding")
	}
	return t.next.RoundTrip(req)
}

// gzipMagic starts every gzip stream; no JSON starts with it.
var gzipMagic = []byte{0x1f, 0x8b}

// inflate returns what body holds: the stream unzipped when it is gzip,
// the bytes as they are otherwise (a small answer the server did not
// compress, or one a proxy unzipped). The body is recognised by its first
// bytes, not by Content-Encoding, which rest.Request.Stream does not give.
func inflate(body io.Reader) (io.Reader, error) {
	br := bufio.NewReaderSize(body, 64<<10)
	head, err := br.Peek(len(gzipMagic))
	if err != nil || !bytes.Equal(head, gzipMagic) {
		return br, nil // a short body is not gzip: the decoder reports it
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, fmt.Errorf("reading the gzip answer: %w", err)
	}
	return zr, nil
}
