package codec

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/s2"
)

// TestAppendDelta: what appendDelta writes, s2 decodes with prev as its
// dictionary back to doc, whatever the edit; where it does not apply, it
// says so.
func TestAppendDelta(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	text := func(n int) []byte { return randomText(r, n) }
	base := cm("a", 1, string(text(1024)))
	edit := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), base...)) }
	tests := []struct {
		name      string
		prev, doc []byte
		ok        bool
	}{
		{"the same", base, base, true},
		{"a letter changed", base, edit(func(b []byte) []byte { b[300] = '!'; return b }), true},
		{"a run of letters changed, past alignedEdit", base, edit(func(b []byte) []byte { copy(b[300:], "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"); return b }), true},
		{"bytes inserted", base, edit(func(b []byte) []byte { return append(b[:500:500], append([]byte("inserted"), base[500:]...)...) }), true},
		{"bytes removed", base, edit(func(b []byte) []byte { return append(b[:200:200], base[260:]...) }), true},
		{"the start and the end changed", base, edit(func(b []byte) []byte { b[0], b[len(b)-1] = 'x', 'y'; return b }), true},
		{"nothing in common", base, text(1500), true},
		{"a run longer than 64 KiB's repeats", bytes.Repeat([]byte("0123456789abcdef"), 4000), bytes.Repeat([]byte("0123456789abcdef"), 4090), true},
		{"a doc past the dictionary's offsets", base, text(70000), false},
		{"a dictionary too small", []byte("tiny"), base, false},
		{"a doc too small", base, []byte("{}"), false},
	}
	for i := range 50 { // random edits of random texts, short and long
		prev := text(16 + r.IntN(4000))
		doc := append([]byte(nil), prev...)
		for range 1 + r.IntN(8) {
			at := r.IntN(len(doc))
			switch r.IntN(3) {
			case 0:
				doc[at] = '#'
			case 1:
				doc = append(doc[:at:at], append(text(r.IntN(40)), doc[at:]...)...)
			default:
				doc = append(doc[:at:at], doc[min(len(doc), at+r.IntN(40)):]...)
			}
		}
		tests = append(tests, struct {
			name      string
			prev, doc []byte
			ok        bool
		}{fmt.Sprintf("random %d", i), prev, doc, len(doc) >= 8})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, ok := appendDelta([]byte("kept"), tc.prev, tc.doc)
			if ok != tc.ok {
				t.Fatalf("ok = %t, want %t", ok, tc.ok)
			}
			if !bytes.HasPrefix(out, []byte("kept")) {
				t.Fatalf("dst not kept: %q", out[:min(len(out), 4)])
			}
			if !ok {
				return
			}
			got, err := s2.MakeDictManual(tc.prev, 0).Decode(nil, out[4:])
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if !bytes.Equal(got, tc.doc) {
				t.Fatalf("decoded %d bytes that differ from the %d encoded", len(got), len(tc.doc))
			}
		})
	}
}

// BenchmarkDelta measures a revision of a 1 KiB ConfigMap a few letters
// away from the one before it (the dictionary) encoded by s2's dictionary
// encoder and by appendDelta: time and size.
func BenchmarkDelta(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	prev := cm("a", 1, string(randomText(r, 1024)))
	doc := append([]byte(nil), prev...)
	doc[200], doc[700], doc[900] = '!', '?', '#'
	for _, enc := range []struct {
		name string
		f    func(dst []byte) []byte
	}{
		{"s2", func(dst []byte) []byte { return s2.MakeDictManual(prev, 0).Encode(dst, doc) }},
		{"appendDelta", func(dst []byte) []byte { out, _ := appendDelta(dst, prev, doc); return out }},
	} {
		b.Run(enc.name, func(b *testing.B) {
			var out []byte
			for b.Loop() {
				out = enc.f(out[:0])
			}
			b.ReportMetric(float64(len(out)), "bytes")
		})
	}
}

// randomText is n letters drawn from r: text that does not compress.
func randomText(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + r.IntN(26))
	}
	return b
}

// cm is a ConfigMap's JSON as the recorder keeps it.
func cm(name string, rv uint64, value string) []byte {
	return fmt.Appendf(nil, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"namespace":"default","resourceVersion":"%d","managedFields":[{"manager":"kubectl-client-side-apply","time":"2026-12-04T06:00:00Z"}]},"data":{"v":%q}}`, name, rv, value)
}

// BenchmarkEncodeDelta measures a revision of a 1 KiB ConfigMap a few
// letters away from its keyframe: its size as a delta and the time to
// encode it.
func BenchmarkEncodeDelta(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	doc := cm("a", 1, string(randomText(r, 1024)))
	blob, _, head := Encode(nil, 1, doc)
	edited := append([]byte(nil), doc...)
	edited[200] = '!'
	var delta []byte
	for b.Loop() {
		delta, _, _ = Encode(head, 2, edited)
	}
	b.ReportMetric(float64(len(delta)), "delta-bytes")
	b.ReportMetric(float64(len(blob)), "keyframe-bytes")
}
