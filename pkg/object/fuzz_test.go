package object

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/internal/jsontest"
)

// The fuzz targets below run their seeds in every `go test`; `make fuzz`
// explores from them (go test -fuzz). Their property is that of the package
// whatever bytes a server sends: nothing panics, a decoded object is valid
// JSON, and it is the input less exactly the pruned members, packed or not.

// fuzzSeeds are objects as servers send them, and the odd shapes pruning
// must survive: escapes, spaces, a pruned member first, last or alone.
var fuzzSeeds = []string{
	string(configMap(1, 64, letters)),
	string(configMap(2, 16, utf8ish)),
	`{"metadata":{"managedFields":[{"manager":"m"}]}}`,
	`{"metadata":{"managedFields":[],"name":"a"},"kind":"ConfigMap"}`,
	`{ "metadata" : { "name" : "a" , "managedFields" : [ ] } }`,
	`{"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}","b":"c"},"name":"x\"y"}}`,
	`{"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}"}}}`,
	`{"metadata":{"m\u0061nagedFields":[1],"managedFields":[2]}}`,
	`{"spec":{"ownerReferences":[{"kind":"ConfigMapGenerator"}]},"metadata":{"name":"a"},"status":{}}`,
	`{}`, `{"kind":null}`, `[]`, `"x"`, ``, `{"metadata":`,
}

// FuzzDecode: Decode never panics; valid JSON that it accepts comes out as
// valid JSON equal, as a value, to the input less the members its Prune
// drops. (Its callers validate: of invalid JSON it only must not panic.)
func FuzzDecode(f *testing.F) {
	for _, s := range fuzzSeeds {
		for flags := range uint8(8) {
			f.Add([]byte(s), flags)
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte, flags uint8) {
		p := pruneOf(flags)
		in := bytes.Clone(raw)
		o, err := Decode(raw, p)
		if !bytes.Equal(raw, in) {
			t.Fatalf("Decode changed its input")
		}
		if err != nil || !json.Valid(raw) {
			return
		}
		got := o.JSON()
		if !json.Valid(got) {
			t.Fatalf("Decode(%q) = %q: not valid JSON", raw, got)
		}
		want, ok := prunedValue(raw, p)
		if !ok {
			return // not something encoding/json reads the same way
		}
		var gotValue any
		if err := json.Unmarshal(got, &gotValue); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(gotValue, want) {
			t.Fatalf("Decode(%q, %+v) = %s, want %v", raw, p, got, want)
		}
	})
}

// FuzzPack: a packing decoder, its codec learnt from ConfigMaps, gives back
// every object exactly as a plain decoder does.
func FuzzPack(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	packing := NewDecoder(DecoderOptions{Pack: true, Prune: Prune{ManagedFields: true}})
	for i := range 64 {
		if _, err := packing.Decode(configMap(i, 1024, letters), nil, nil); err != nil {
			f.Fatal(err)
		}
	}
	plain := NewDecoder(DecoderOptions{Prune: Prune{ManagedFields: true}})
	f.Fuzz(func(t *testing.T, raw []byte) {
		want, err := plain.Decode(raw, nil, nil)
		got, gotErr := packing.Decode(raw, nil, nil)
		if !json.Valid(raw) {
			return
		}
		if (err == nil) != (gotErr == nil) {
			t.Fatalf("plain error %v, packing error %v", err, gotErr)
		}
		if err != nil {
			return
		}
		if packed, n := got.Packed(); packed && n >= len(want.JSON()) {
			t.Errorf("packed into %d bytes, not fewer than the JSON's %d", n, len(want.JSON()))
		}
		if !bytes.Equal(got.JSON(), want.JSON()) {
			t.Fatalf("packed and read back: %q, want %q", got.JSON(), want.JSON())
		}
	})
}

// pruneOf reads a Prune from a fuzzer's bits.
func pruneOf(flags uint8) Prune {
	p := Prune{ManagedFields: flags&1 != 0, LastApplied: flags&2 != 0}
	if flags&4 != 0 {
		p.MetadataOnlyUnless = `"ConfigMapGenerator"` + "\n" + `"manager":"m"`
	}
	return p
}

// prunedValue is raw as encoding/json reads it, less what p drops, and
// whether the comparison holds: raw is one JSON object with no duplicate
// keys where pruning looks (where encoding/json keeps the last and gjson
// finds the first).
func prunedValue(raw []byte, p Prune) (map[string]any, bool) {
	var v map[string]any
	if json.Unmarshal(raw, &v) != nil || v == nil || jsontest.DuplicateKeys(raw) {
		return nil, false
	}
	md, _ := v["metadata"].(map[string]any)
	if markers := p.markers(); len(markers) > 0 && !mentionsAny(raw, markers) {
		for k := range v {
			if k != "apiVersion" && k != "kind" && k != "metadata" {
				delete(v, k)
			}
		}
		p.ManagedFields, p.LastApplied = true, true
	}
	if md != nil && p.ManagedFields {
		delete(md, "managedFields")
	}
	if annotations, ok := md["annotations"].(map[string]any); ok && p.LastApplied {
		delete(annotations, "kubectl.kubernetes.io/last-applied-configuration")
	}
	return v, true
}

// FuzzParsePath: any text is a path or an error, never a panic; a path
// reads back from its String as the same path, and looking it up in, or
// deleting it from, a document does not panic either.
func FuzzParsePath(f *testing.F) {
	for _, s := range []string{
		"spec.replicas", "{.spec.containers[0].image}", `metadata.labels['a.b/c']`, `a\.b`, "x[1][2]", `["q\"x"]`,
		"{}", "a..b", "$['a'].b", "spec.containers[*].image", "labels[*]", "a[?(@.x)]", `data['it\'s']`,
	} {
		f.Add(s)
	}
	const doc = `{"spec":{"replicas":1,"containers":[{"image":"x"},{"image":"y"}]},"metadata":{"labels":{"a.b/c":"d"}}}`
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePath(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "invalid field path ") {
				t.Fatalf("ParsePath(%q): %v", s, err)
			}
			return
		}
		again, err := ParsePath(p.String())
		if err != nil || !reflect.DeepEqual(again, p) {
			t.Fatalf("ParsePath(%q) = %#v, String %q, read back as %#v, %v", s, p, p.String(), again, err)
		}
		p.Lookup([]byte(doc))
		var v any
		if err := json.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatal(err)
		}
		p.Delete(v)
	})
}
