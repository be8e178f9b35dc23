package codec

import (
	"bytes"
	"errors"
	"runtime"
	"testing"
	"time"
)

// The fuzz targets below are the decoders of what a history file holds:
// an object's blob (a keyframe or a delta against the revision before) and
// a checkpoint's part. Their seeds run in every `go test`; `make fuzz`
// explores from them. A file can be damaged, or written by a version with
// a bug, so the property is the same for any bytes: nothing panics or
// allocates without bound, a failure is errCorruptBlob, and what the
// writer encoded decodes back exactly.

// blobSeeds are objects as the recorder keeps them, and edits of them.
func blobSeeds() [][2][]byte {
	doc := cm("a", 1, "0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz")
	edited := bytes.Replace(doc, []byte("klmno"), []byte("KLMNO"), 1)
	grown := append(bytes.Clone(doc[:len(doc)-2]), []byte(`,"more":"x"}}`)...)
	return [][2][]byte{
		{doc, edited}, {doc, grown}, {edited, doc}, {doc, doc},
		{nil, doc}, {doc, nil}, {[]byte(`{}`), []byte(`{"a":1}`)},
	}
}

// FuzzBlobRoundTrip: a revision encoded against the one before it (a delta
// when that pays, else a keyframe) decodes back to exactly its bytes.
func FuzzBlobRoundTrip(f *testing.F) {
	for _, s := range blobSeeds() {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, prev, doc []byte) {
		head := &Head{Frame: 1, Depth: 1, JSON: prev}
		blob, base, _ := Encode(head, 2, doc)
		var dict []byte
		if base != 0 {
			dict = prev
		}
		got, err := Decode(blob, dict)
		if err != nil {
			t.Fatalf("decode of what encode wrote: %v", err)
		}
		if !bytes.Equal(got, doc) {
			t.Fatalf("decoded %q, want %q", got, doc)
		}
	})
}

// FuzzDecodeBlob: any bytes, as a blob and the revision before it, decode
// or fail with errCorruptBlob; never a panic.
func FuzzDecodeBlob(f *testing.F) {
	for _, s := range blobSeeds() {
		delta, _ := encodeDelta(s[0], s[1])
		f.Add(delta, s[0])
		f.Add(EncodeKeyframe(s[1]), []byte(nil))
	}
	f.Add([]byte{kindKeyframe, 0xff, 0xff, 0xff, 0xff, 0x0f}, []byte(nil)) // claims 4 GiB
	f.Add([]byte{}, []byte(nil))
	f.Add([]byte{'x', 1, 2}, []byte(nil))
	f.Fuzz(func(t *testing.T, blob, prev []byte) {
		if _, err := Decode(blob, prev); err != nil && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("Decode failed with %v, not ErrCorrupt", err)
		}
		if _, err := DecodeChain([][]byte{blob}); err != nil && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("DecodeChain failed with %v, not ErrCorrupt", err)
		}
	})
}

// FuzzCheckpointPart: an entry appended to a part decodes back as the
// entry it was; any bytes as a part decode or fail with ErrCorrupt.
func FuzzCheckpointPart(f *testing.F) {
	f.Add("ns", "a", "kubectl", uint64(7), int64(1765000000000), []byte(`{"a":1}`), []byte(`["a"]`), true, []byte{})
	f.Add("", "node-1", "", uint64(0), int64(-1), []byte{}, []byte(nil), false, []byte{0x05, 0x10, 0x01})
	f.Add("x", "y", "z", uint64(1<<63), int64(0), []byte("{}"), []byte(nil), false, []byte{0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, ns, name, manager string, rv uint64, ms int64, obj, cells []byte, hasCells bool, raw []byte) {
		want := Entry{Namespace: ns, Name: name, Manager: manager, RV: rv, Time: time.UnixMilli(ms).UTC(), Object: obj}
		if hasCells {
			want.Cells = cells
		}
		var p Parts
		p.Add(&want)
		p.Flush()
		es, _, err := DecodePart(nil, nil, p.Done[0])
		if err != nil || len(es) != 1 {
			t.Fatalf("DecodePart of one entry: %d entries, %v", len(es), err)
		}
		if !sameEntry(es[0], want) {
			t.Fatalf("decoded %+v, want %+v", es[0], want)
		}
		if _, _, err := DecodePart(nil, nil, raw); err != nil && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("DecodePart failed with %v, not ErrCorrupt", err)
		}
	})
}

// sameEntry compares what a part keeps of an entry (an empty object or
// cells and a nil one are the same bytes; nil cells and present-but-empty
// ones are not).
func sameEntry(a, b Entry) bool {
	return a.Namespace == b.Namespace && a.Name == b.Name && a.Manager == b.Manager && a.RV == b.RV &&
		a.Time.Equal(b.Time) && bytes.Equal(a.Object, b.Object) &&
		(a.Cells == nil) == (b.Cells == nil) && bytes.Equal(a.Cells, b.Cells)
}

// TestDecodeBoundsAllocation: a damaged block whose header claims 4 GiB
// fails without allocating them (s2 would make the buffer first).
func TestDecodeBoundsAllocation(t *testing.T) {
	huge := []byte{0xff, 0xff, 0xff, 0xff, 0x0f, 0x00}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, errBlob := Decode(append([]byte{kindKeyframe}, huge...), nil)
	_, _, errPart := DecodePart(nil, nil, huge)
	runtime.ReadMemStats(&after)
	if !errors.Is(errBlob, ErrCorrupt) || !errors.Is(errPart, ErrCorrupt) {
		t.Fatalf("errors %v, %v; want ErrCorrupt", errBlob, errPart)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Fatalf("decoding two damaged blocks allocated %d bytes", n)
	}
}
