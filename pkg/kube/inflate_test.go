package kube

import (
	"bytes"
	stdgzip "compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

func gzipped(t testing.TB, b []byte) []byte {
	t.Helper()
	var z bytes.Buffer
	w, err := stdgzip.NewWriterLevel(&z, stdgzip.BestSpeed) // the API server's level
	if err != nil {
		t.Fatal(err)
	}
	w.Write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return z.Bytes()
}

// TestInflate: a gzip body is unzipped, any other is read as it is, and a
// broken gzip stream is an error.
func TestInflate(t *testing.T) {
	list := []byte(emptyConfigMapList)
	tests := []struct {
		name    string
		body    []byte
		want    string
		wantErr bool
	}{
		{"gzip", gzipped(t, list), emptyConfigMapList, false},
		{"plain", list, emptyConfigMapList, false},
		{"empty", nil, "", false},
		{"one byte", []byte{0x1f}, "\x1f", false},
		{"gzip header cut short", gzipped(t, list)[:5], "", true},
		{"gzip data cut short", gzipped(t, list)[:30], "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := inflate(bytes.NewReader(tt.body))
			var got []byte
			if err == nil {
				got, err = io.ReadAll(r)
			}
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, want one: %v", err, tt.wantErr)
			}
			if !tt.wantErr && string(got) != tt.want {
				t.Errorf("read %q, want %q", got, tt.want)
			}
		})
	}
}

// TestListGzip: List asks for gzip and decodes a gzip answer (as the API
// server sends large ones) and a plain one alike.
func TestListGzip(t *testing.T) {
	body := wireList(t, 50)
	for _, zipped := range []bool{true, false} {
		var asked string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			asked = r.Header.Get("Accept-Encoding")
			w.Header().Set("Content-Type", "application/json")
			if zipped {
				w.Header().Set("Content-Encoding", "gzip")
				w.Write(gzipped(t, body))
				return
			}
			w.Write(body)
		}))
		rc, err := NewRESTClient(&rest.Config{Host: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		page, err := NewClient(rc, configMaps, benchScope).List(t.Context(), watch.ListRequest{})
		srv.Close()
		if err != nil {
			t.Fatalf("gzip %v: %v", zipped, err)
		}
		if len(page.Items) != 50 || page.Items[49].Name != "bench-00049" || page.ResourceVersion != "99999" {
			t.Errorf("gzip %v: %d items, resourceVersion %q", zipped, len(page.Items), page.ResourceVersion)
		}
		if !strings.Contains(asked, "gzip") {
			t.Errorf("Accept-Encoding %q, want gzip", asked)
		}
	}
}

// BenchmarkInflate unzips a LIST answer of 1,000 ConfigMaps of 1 KiB of
// random text as the API server zips it, with the standard library
// (net/http's transparent gunzip) and with klauspost/compress (inflate).
func BenchmarkInflate(b *testing.B) {
	zipped := gzipped(b, wireListRandom(b, 1000))
	for _, impl := range []struct {
		name      string
		newReader func(io.Reader) (io.Reader, error)
	}{
		{"stdlib", func(r io.Reader) (io.Reader, error) { return stdgzip.NewReader(r) }},
		{"klauspost", inflate},
	} {
		b.Run(impl.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r, err := impl.newReader(bytes.NewReader(zipped))
				if err != nil {
					b.Fatal(err)
				}
				n, err := io.Copy(io.Discard, r)
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(n)
			}
		})
	}
}

// TestDisableCompression: a client whose config disables compression
// (kubectl's --disable-compression) asks for no encoding, for a LIST and a
// WATCH alike; one that does not asks for gzip.
func TestDisableCompression(t *testing.T) {
	for _, disabled := range []bool{false, true} {
		var asked []string
		// TLS, as an API server: client-go gives a plain-HTTP config
		// net/http's default transport, which ignores DisableCompression.
		srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			asked = append(asked, r.Header.Get("Accept-Encoding"))
			w.Header().Set("Content-Type", "application/json")
			if r.URL.Query().Get("watch") == "" {
				w.Write([]byte(emptyConfigMapList))
			}
		}))
		rc, err := NewRESTClient(&rest.Config{Host: srv.URL, DisableCompression: disabled, TLSClientConfig: rest.TLSClientConfig{Insecure: true}})
		if err != nil {
			t.Fatal(err)
		}
		c := NewClient(rc, configMaps, Scope{})
		if _, err := c.List(t.Context(), watch.ListRequest{}); err != nil {
			t.Fatalf("List: %v", err)
		}
		s, err := c.Watch(t.Context(), watch.WatchRequest{})
		if err != nil {
			t.Fatalf("Watch: %v", err)
		}
		s.Close()
		srv.Close()
		for i, a := range asked {
			if disabled && a != "" || !disabled && !strings.Contains(a, "gzip") {
				t.Errorf("compression disabled %v: request %d asked Accept-Encoding %q", disabled, i, a)
			}
		}
		if len(asked) != 2 {
			t.Errorf("compression disabled %v: %d requests, want 2", disabled, len(asked))
		}
	}
}
