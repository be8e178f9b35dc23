package kube

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// wireConfigMap is the JSON the API server sends for a ConfigMap of 1 KiB
// of data written by one field manager: the typed object encoded as the
// server encodes it (encoding/json, fields in the struct's order), with its
// managedFields.
func wireConfigMap(t testing.TB, i, rv int) []byte {
	return wireConfigMapOf(t, i, rv, strings.Repeat(fmt.Sprintf("%07d-", i), 128))
}

// wireConfigMapOf is wireConfigMap with payload as its data.
func wireConfigMapOf(t testing.TB, i, rv int, payload string) []byte {
	t.Helper()
	created := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	cm := corev1.ConfigMap{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("bench-%05d", i), Namespace: "bench", UID: types.UID(fmt.Sprintf("6f0c1d2e-3a4b-4c5d-8e9f-%012d", i)),
			ResourceVersion: fmt.Sprint(rv), CreationTimestamp: created,
			Labels: map[string]string{"app": "bench"},
			ManagedFields: []metav1.ManagedFieldsEntry{{
				Manager: "bench", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &created,
				FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:data":{".":{},"f:payload":{}},"f:metadata":{"f:labels":{".":{},"f:app":{}}}}`)},
			}},
		},
		Data: map[string]string{"payload": payload},
	}
	raw, err := json.Marshal(cm)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// wireList is a LIST answer of n ConfigMaps of 1 KiB.
func wireList(t testing.TB, n int) []byte {
	return wireListOf(t, n, func(i int) []byte { return wireConfigMap(t, i, 1000+i) })
}

// wireListRandom is a LIST answer of n ConfigMaps of 1 KiB of random text,
// as test/bench creates them.
func wireListRandom(t testing.TB, n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 "
	payload := make([]byte, 1024)
	return wireListOf(t, n, func(i int) []byte {
		for j := range payload {
			payload[j] = letters[r.IntN(len(letters))]
		}
		return wireConfigMapOf(t, i, 1000+i, string(payload))
	})
}

func wireListOf(t testing.TB, n int, item func(i int) []byte) []byte {
	var b bytes.Buffer
	b.WriteString(`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"99999"},"items":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(item(i))
	}
	b.WriteString("]}\n")
	return b.Bytes()
}

// wireEvent is one MODIFIED watch event of a ConfigMap of 1 KiB, newline
// terminated as the server frames it.
func wireEvent(t testing.TB) []byte {
	return append(append([]byte(`{"type":"MODIFIED","object":`), wireConfigMap(t, 7, 123456)...), "}\n"...)
}

// benchScope is what `watch -o json` asks for: managedFields pruned.
var benchScope = Scope{Namespace: "bench", Shape: Shape{Prune: object.Prune{ManagedFields: true}}}

// BenchmarkDecodeList decodes a LIST answer of 1,000 ConfigMaps of 1 KiB
// from a stream, as Client.List does; ns/op and allocs/op are per LIST.
func BenchmarkDecodeList(b *testing.B) {
	body := wireList(b, 1000)
	d := newDecoding(configMaps, benchScope.Shape, new(atomic.Pointer[object.Known]))
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		page, _, err := decodeList(bytes.NewReader(body), d)
		if err != nil || len(page.Items) != 1000 {
			b.Fatalf("decoded %d items: %v", len(page.Items), err)
		}
	}
}

// BenchmarkDecodeEvent reads and decodes one watch event of a ConfigMap of
// 1 KiB from a watch body, as a watch stream does for each live event.
func BenchmarkDecodeEvent(b *testing.B) {
	ev := wireEvent(b)
	s := newStream(io.NopCloser(&repeatReader{frame: ev}), NewClient(nil, configMaps, benchScope), nil)
	s.ep = s.client.ep.Load()
	b.SetBytes(int64(len(ev)))
	b.ReportAllocs()
	for b.Loop() {
		if e, err := s.Next(); err != nil || e.Object == nil {
			b.Fatalf("event %+v: %v", e, err)
		}
	}
}

// TestDecodeEventAllocs pins the allocations of reading and decoding one
// live event (the kube side of the per-event NDJSON path; printing it
// allocates nothing, see pkg/output's TestJSONDoesNotAllocate): the
// object and its JSON, which the store keeps, and little else.
func TestDecodeEventAllocs(t *testing.T) {
	const limit = 3
	s := newStream(io.NopCloser(&repeatReader{frame: wireEvent(t)}), NewClient(nil, configMaps, benchScope), nil)
	s.ep = s.client.ep.Load()
	s.Next() // fills the reader's buffer
	allocs := testing.AllocsPerRun(1000, func() {
		if _, err := s.Next(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > limit {
		t.Errorf("decoding one event allocates %v times, want at most %d", allocs, limit)
	}
}

// repeatReader reads frame over and over, as a watch body that never ends.
type repeatReader struct {
	frame []byte
	off   int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.frame[r.off:])
		n += c
		r.off = (r.off + c) % len(r.frame)
	}
	return n, nil
}

// BenchmarkScanValue finds where a list item ends, as reader.value does
// before decoding it: a ConfigMap of 1 KiB of random text, and one holding
// a file of 1 MiB in lines of 80 bytes (an escape, \n, every 81 bytes of
// its one long string: crossed once, not once per line); ns/op is per item.
func BenchmarkScanValue(b *testing.B) {
	var file strings.Builder
	for file.Len() < 1<<20 {
		file.WriteString(strings.Repeat("x", 80) + "\n")
	}
	for _, tt := range []struct {
		name string
		item []byte
	}{
		{"random-1KiB", []byte(gjson.GetBytes(wireListRandom(b, 1), "items.0").Raw)},
		{"file-1MiB", wireConfigMapOf(b, 1, 1, file.String())},
	} {
		b.Run(tt.name, func(b *testing.B) {
			b.SetBytes(int64(len(tt.item)))
			b.ReportAllocs()
			for b.Loop() {
				var s valueScanner
				if n, ok := s.advance(tt.item, false); !ok || n != len(tt.item) {
					b.Fatalf("scanned %d of %d bytes, whole %v", n, len(tt.item), ok)
				}
			}
		})
	}
}
