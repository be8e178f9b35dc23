package object

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

// configMap is a ConfigMap as the server sends it, with n bytes of text
// drawn from alphabet (random per object) in its data.
func configMap(i, n int, alphabet string) []byte {
	r := rand.New(rand.NewPCG(uint64(i), 7))
	var text strings.Builder
	for range n {
		text.WriteByte(alphabet[r.IntN(len(alphabet))])
	}
	data, _ := json.Marshal(map[string]string{"payload": text.String()})
	return fmt.Appendf(nil, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm-%06d","namespace":"ns-%d",`+
		`"uid":"%08x-7d1c-4a53-9f0e-%012x","resourceVersion":"%d","creationTimestamp":"2026-11-29T18:00:00Z",`+
		`"labels":{"app":"bench"},"managedFields":[{"manager":"bench","operation":"Update","apiVersion":"v1"}]},"data":%s}`,
		i, i%3, r.Uint32(), r.Uint64()&0xffffffffffff, 1000+i, data)
}

const (
	letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	utf8ish = "aé€😀 \\\"\n\tz" // escapes and multi-byte runes once JSON-encoded
)

// TestPackRoundTrip: a packing decoder gives the same objects as a plain
// one, for every object and however it is read back, never in more bytes
// than the JSON; objects before the codec is learnt are kept as JSON, all
// later ones packed.
func TestPackRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		doc  func(i int) []byte
	}{
		{"random letters", func(i int) []byte { return configMap(i, 1024, letters) }},
		{"escapes and UTF-8", func(i int) []byte { return configMap(i, 600, utf8ish) }},
		{"mixed sizes", func(i int) []byte { return configMap(i, i%7*300, letters) }},
		// Too small for huff0: the s2 stage alone packs them.
		{"tiny", func(i int) []byte { return fmt.Appendf(nil, `{"metadata":{"name":"%d","uid":"u"}}`, i) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := DecoderOptions{Prune: Prune{ManagedFields: true}, APIVersion: "v1", Kind: "ConfigMap"}
			plain := NewDecoder(opts)
			opts.Pack = true
			packing := NewDecoder(opts)
			var sampled, packed, kept, held int
			for i := range 3000 {
				doc := tt.doc(i)
				want, err := plain.Decode(doc, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				got, err := packing.Decode(doc, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				checkSame(t, got, want)
				p, n := got.Packed()
				if p {
					packed++
				}
				if n > len(want.JSON()) {
					t.Fatalf("object %d is held in %d bytes, more than its %d of JSON", i, n, len(want.JSON()))
				}
				if sampled < sampleBytes {
					sampled += len(want.JSON())
				} else if !p {
					kept++
				}
				held += n
			}
			if kept > 0 {
				t.Errorf("%d objects after the sample were kept as JSON", kept)
			}
			t.Logf("%d of 3000 packed, %d bytes held", packed, held)
		})
	}
}

// checkSame fails unless got and want are the same object.
func checkSame(t *testing.T, got, want *Object) {
	t.Helper()
	if got.Namespace != want.Namespace || got.Name != want.Name || got.UID != want.UID || got.ResourceVersion != want.ResourceVersion {
		t.Fatalf("identity %s/%s %s %s, want %s/%s %s %s", got.Namespace, got.Name, got.UID, got.ResourceVersion,
			want.Namespace, want.Name, want.UID, want.ResourceVersion)
	}
	if !bytes.Equal(got.JSON(), want.JSON()) {
		t.Fatalf("JSON() =\n%s\nwant\n%s", got.JSON(), want.JSON())
	}
	if b := got.AppendJSON([]byte("prefix")); string(b) != "prefix"+string(want.JSON()) {
		t.Fatalf("AppendJSON = %.80s, want prefix then the JSON", b)
	}
}

// TestPackSavesMemory: ConfigMaps of random letters are held in less than
// three quarters of their JSON once the codec is learnt (the letters alone
// carry about 6 of 8 bits per byte).
func TestPackSavesMemory(t *testing.T) {
	d := NewDecoder(DecoderOptions{Pack: true, Prune: Prune{ManagedFields: true}})
	var json, held int
	for i := range 2000 {
		o, err := d.Decode(configMap(i, 1024, letters), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if p, n := o.Packed(); p {
			json, held = json+len(o.JSON()), held+n
		}
	}
	if ratio := float64(held) / float64(json); ratio > 0.75 {
		t.Errorf("packed %d bytes of JSON into %d (%.2f), want at most 0.75", json, held, ratio)
	}
}

// TestUnpackConcurrently: packed objects are read from many goroutines at
// once (run with -race).
func TestUnpackConcurrently(t *testing.T) {
	d := NewDecoder(DecoderOptions{Pack: true})
	var objs []*Object
	var want [][]byte
	for i := range 500 {
		doc := configMap(i, 1500, letters)
		o, err := d.Decode(doc, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		objs, want = append(objs, o), append(want, doc)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for i := g; i < len(objs); i += 3 {
				buf = objs[i].AppendJSON(buf[:0])
				if !bytes.Equal(buf, want[i]) {
					t.Errorf("object %d read back differently", i)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestDecodeReusesKnown: an object known at the same resourceVersion (and
// with cells or none, as the new one) is returned instead of a new one.
func TestDecodeReusesKnown(t *testing.T) {
	d := NewDecoder(DecoderOptions{Pack: true})
	doc := configMap(1, 100, letters)
	old, err := d.Decode(doc, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	withCells, err := d.Decode(doc, []byte(`["a"]`), nil)
	if err != nil {
		t.Fatal(err)
	}
	known := func(o *Object) Known {
		return func(ns, name string) (*Object, bool) {
			if ns != o.Namespace || name != o.Name {
				t.Errorf("known(%q, %q), want %s/%s", ns, name, o.Namespace, o.Name)
			}
			return o, true
		}
	}
	newer := bytes.Replace(doc, []byte(`"resourceVersion":"1001"`), []byte(`"resourceVersion":"1002"`), 1)
	tests := []struct {
		name      string
		doc       []byte
		cells     []byte
		known     Known
		wantReuse *Object
	}{
		{"same version", doc, nil, known(old), old},
		{"same version with cells", doc, []byte(`["b"]`), known(withCells), withCells},
		{"newer version", newer, nil, known(old), nil},
		{"cells now, none before", doc, []byte(`["b"]`), known(old), nil},
		{"none now, cells before", doc, nil, known(withCells), nil},
		{"unknown", doc, nil, func(string, string) (*Object, bool) { return nil, false }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := d.Decode(tt.doc, tt.cells, tt.known)
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantReuse != nil && got != tt.wantReuse {
				t.Errorf("decoded a new object, want the known one")
			}
			if tt.wantReuse == nil && (got == old || got == withCells) {
				t.Errorf("returned the known object, want a new one")
			}
			if string(got.Cells) != string(tt.cells) && tt.wantReuse == nil {
				t.Errorf("cells = %s, want %s", got.Cells, tt.cells)
			}
		})
	}
}

// TestWithTypeMeta: list items get the list's kind unless they have one.
func TestWithTypeMeta(t *testing.T) {
	d := NewDecoder(DecoderOptions{APIVersion: "apps/v1", Kind: "Deployment"})
	tests := []struct{ raw, want string }{
		{`{}`, `{"apiVersion":"apps/v1","kind":"Deployment"}`},
		{"{ \n\t}", `{"apiVersion":"apps/v1","kind":"Deployment"}`},
		{`{"metadata":{}}`, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{}}`},
		{"{\n  \"metadata\": {}\n}", "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\": {}\n}"},
		{`{"kind":"Scale","apiVersion":"autoscaling/v1"}`, `{"kind":"Scale","apiVersion":"autoscaling/v1"}`},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			o, err := d.Decode([]byte(tt.raw), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := o.JSON(); string(got) != tt.want || !json.Valid(got) {
				t.Errorf("JSON() = %s, want %s", got, tt.want)
			}
		})
	}
}

func BenchmarkDecode(b *testing.B) {
	docs := make([][]byte, 1000)
	pruned := make([][]byte, len(docs)) // as a daemon or a store serves them
	for i := range docs {
		docs[i] = configMap(i, 1024, letters)
		o, err := Decode(docs[i], Prune{ManagedFields: true})
		if err != nil {
			b.Fatal(err)
		}
		pruned[i] = o.JSON()
	}
	for _, tt := range []struct {
		name  string
		pack  bool
		prune Prune
		docs  [][]byte
	}{
		{"pack=false", false, Prune{ManagedFields: true}, docs},
		// get's and watch's pruning (both, by default) of objects with no
		// managedFields and no last-applied annotation.
		{"pack=false/nothing-to-prune", false, Prune{ManagedFields: true, LastApplied: true}, pruned},
		{"pack=true", true, Prune{ManagedFields: true}, docs},
		// A controller's store of objects it does not manage.
		{"pack=true/metadata-only", true, Prune{MetadataOnlyUnless: "\"Owner\"\n\"owner-manager\""}, docs},
	} {
		b.Run(tt.name, func(b *testing.B) {
			d := NewDecoder(DecoderOptions{Pack: tt.pack, Prune: tt.prune})
			b.SetBytes(int64(len(tt.docs[0])))
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if _, err := d.Decode(tt.docs[i%len(tt.docs)], nil, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkAppendJSON(b *testing.B) {
	d := NewDecoder(DecoderOptions{Pack: true})
	var objs []*Object
	for i := range 1000 {
		o, err := d.Decode(configMap(i, 1024, letters), nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		objs = append(objs, o)
	}
	b.SetBytes(int64(len(objs[999].JSON())))
	b.ReportAllocs()
	var buf []byte
	for i := 0; b.Loop(); i++ {
		buf = objs[100+i%900].AppendJSON(buf[:0])
	}
}

// TestPackAfterALargeFirstObject: a first object larger than the whole
// sample does not leave a resource unpacked: the codec waits for a second
// object, and every object after the sample is packed.
func TestPackAfterALargeFirstObject(t *testing.T) {
	d := NewDecoder(DecoderOptions{Pack: true})
	for i := range 200 {
		size := 1024
		if i == 0 {
			size = 2 * sampleBytes
		}
		o, err := d.Decode(configMap(i, size, letters), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if p, _ := o.Packed(); i >= 2 && !p {
			t.Fatalf("object %d is kept as JSON, want it packed", i)
		}
	}
}
