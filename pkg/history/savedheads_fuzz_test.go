package history

import (
	"errors"
	"maps"
	"runtime"
	"testing"

	"github.com/klauspost/compress/s2"
)

// FuzzRestoreHeads: the heads' sums a writer's Close saves in the history
// (savedheads.go) are what the next writer restores; any bytes as a saved
// row restore all their sums or none, fail with errSavedHeads and never
// panic. Its seeds run in every `go test`; `make test` explores from them.
func FuzzRestoreHeads(f *testing.F) {
	f.Add("demo", "settings", uint64(7), 3, uint64(0xdeadbeef), []byte{})
	f.Add("", "node-1", uint64(0), 0, uint64(0), s2.Encode(nil, []byte{savedHeadsVersion, 0, 1, 'a'}))
	f.Add("x", "y", uint64(1<<63), -1, uint64(1), []byte{0xff, 0xff, 0xff, 0xff, 0x0f}) // claims 4 GiB
	f.Add("x", "y", uint64(1), 1, uint64(1), s2.Encode(nil, []byte{savedHeadsVersion + 1}))
	f.Fuzz(func(t *testing.T, ns, name string, frame uint64, depth int, sum uint64, raw []byte) {
		h := newHeads()
		h.sums[objectKey{resource: 1, namespace: ns, name: name}] = headSum{frame: frame, depth: depth, sum: sum}
		h.sums[objectKey{resource: 1, namespace: name, name: ns + "-2"}] = headSum{frame: sum, depth: 1, sum: frame}
		saved := h.save()[1]
		back := newHeads()
		if err := back.restore(1, saved); err != nil {
			t.Fatalf("restoring what save wrote: %v", err)
		}
		if !maps.Equal(back.sums, h.sums) {
			t.Fatalf("restored %v, saved %v", back.sums, h.sums)
		}
		plain, err := s2.Decode(nil, saved)
		if err != nil {
			t.Fatal(err)
		}
		cut := newHeads() // the row without its last byte: a sum short
		if err := cut.restore(1, s2.Encode(nil, plain[:len(plain)-1])); !errors.Is(err, errSavedHeads) || len(cut.sums) != 0 {
			t.Fatalf("a row cut short restored %d sums, error %v; want none, errSavedHeads", len(cut.sums), err)
		}
		if n, err := s2.DecodedLen(raw); err == nil && n > 1<<20 {
			// A row claiming more than 1 MiB makes restore allocate it before
			// it fails (up to maxSavedHeads: TestRestoreHeadsBoundsAllocation):
			// a second a try, and the fuzzer's time runs out on it.
			t.Skip("claims more than 1 MiB")
		}
		damaged := newHeads()
		err = damaged.restore(2, raw)
		if err != nil && !errors.Is(err, errSavedHeads) {
			t.Fatalf("restore failed with %v, not errSavedHeads", err)
		}
		if err != nil && len(damaged.sums) != 0 {
			t.Fatalf("a row that does not decode restored %d sums", len(damaged.sums))
		}
	})
}

// TestRestoreHeadsBoundsAllocation: a damaged row whose s2 header claims
// 4 GiB fails without allocating them (s2.Decode makes the buffer first).
func TestRestoreHeadsBoundsAllocation(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := newHeads().restore(1, []byte{0xff, 0xff, 0xff, 0xff, 0x0f, 0x00})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, errSavedHeads) {
		t.Fatalf("error %v, want errSavedHeads", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Fatalf("restoring a damaged row allocated %d bytes", n)
	}
}
