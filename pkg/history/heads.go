package history

import (
	"bytes"
	"sync"
	"sync/atomic"

	"github.com/cespare/xxhash/v2"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history/internal/codec"
)

// maxHeads bounds the chain heads, JSON included, a store keeps in memory
// to encode revisions against: those of objects written without
// Revision.Before (put). A head not kept costs one read of the object's
// chain from the store, unless the writer has the head's JSON
// (Revision.Before) and its sum says it is the same.
const maxHeads = 4096

// maxSums bounds the heads' sums kept (about 100 bytes each): one per
// object written, for a million objects.
const maxSums = 1 << 20

// heads caches the chain heads (codec.go) of objects recently written
// without Revision.Before, and a sum of every written object's head, kept
// from one writer to the next (savedheads.go).
type heads struct {
	mu    sync.Mutex
	m     map[objectKey]*codec.Head
	sums  map[objectKey]headSum
	reads atomic.Int64 // chains read back because neither said the head (tests)
}

// headSum is a chain head without its JSON: the JSON's sum instead
// (xxhash, the same in every process).
type headSum struct {
	frame uint64
	depth int
	sum   uint64
}

// objectKey names one object of one resource.
type objectKey struct {
	resource        int64
	namespace, name string
}

func newHeads() *heads {
	return &heads{m: map[objectKey]*codec.Head{}, sums: map[objectKey]headSum{}}
}

// get returns the head of key's chain: the one kept, or else one with
// before as its JSON when before is the JSON of the head written last
// (its sum says so). ok is false when the chain must be read. (A keyframe
// instead of that read, whatever before is, spared no CPU the bench could
// tell apart: its warm rounds took 0.262-0.276 ms per event with it,
// 0.210-0.248 in runs without; and its 1,000 edits of one ConfigMap grew
// the file by 311 bytes per revision instead of 291.)
func (h *heads) get(key objectKey, before []byte) (head *codec.Head, ok bool) {
	h.mu.Lock()
	head, ok = h.m[key]
	s, summed := h.sums[key]
	h.mu.Unlock()
	if ok || !summed || before == nil || xxhash.Sum64(before) != s.sum {
		return head, ok
	}
	return &codec.Head{Frame: s.frame, Depth: s.depth, JSON: before}, true
}

// put keeps head as key's (nil: the object has no revision): its sum,
// and its JSON (a copy) when keepJSON. A writer that handed over the
// revision before (Revision.Before) hands it over next time too, so the
// sum is enough; the JSON is kept for one that did not (a whole state's
// changes). Keeping every head's JSON cost a copy per revision that the
// daemon recording the bench's updates never read back.
func (h *heads) put(key objectKey, head *codec.Head, keepJSON bool) {
	var sum uint64
	if head != nil {
		sum = xxhash.Sum64(head.JSON)
		if keepJSON {
			head = &codec.Head{Frame: head.Frame, Depth: head.Depth, JSON: bytes.Clone(head.JSON)}
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if head != nil && !keepJSON {
		delete(h.m, key)
	} else {
		evict(h.m, key, maxHeads)
		h.m[key] = head
	}
	if head == nil {
		delete(h.sums, key)
		return
	}
	evict(h.sums, key, maxSums)
	h.sums[key] = headSum{frame: head.Frame, depth: head.Depth, sum: sum}
}

// evict drops some entry of m other than key when m is full and lacks key.
func evict[V any](m map[objectKey]V, key objectKey, limit int) {
	if _, ok := m[key]; ok || len(m) < limit {
		return
	}
	for old := range m { // any one: map order is random enough
		delete(m, old)
		return
	}
}

// drop forgets the heads of keys.
func (h *heads) drop(keys []objectKey) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, k := range keys {
		delete(h.m, k)
		delete(h.sums, k)
	}
}

// forget empties the cache (after a write failed).
func (h *heads) forget() {
	h.mu.Lock()
	defer h.mu.Unlock()
	clear(h.m)
	clear(h.sums)
}
