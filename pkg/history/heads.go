package history

import (
	"hash/maphash"
	"sync"
)

// maxHeads bounds the chain heads a store keeps in memory to encode
// revisions against: the objects that change often stay, and a miss
// costs one read of the object's chain from the store, unless the writer
// gives the JSON of the revision before (Revision.Before): see get.
const maxHeads = 4096

// maxSums bounds the heads' sums kept (about 100 bytes each): one per
// object written, for a million objects.
const maxSums = 1 << 20

// heads caches the chain heads (codec.go) of recently written objects,
// and a sum of every written object's head.
type heads struct {
	mu   sync.Mutex
	m    map[objectKey]*chainHead
	sums map[objectKey]headSum
	seed maphash.Seed
}

// headSum is a chain head without its JSON: the JSON's sum instead.
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
	return &heads{m: map[objectKey]*chainHead{}, sums: map[objectKey]headSum{}, seed: maphash.MakeSeed()}
}

// get returns the head to encode key's next revision against: the one
// kept; else, when the writer has the JSON of the object's revision
// before (before), a head with that JSON when its sum is the sum of the
// head written last, or none: a new chain, its keyframe costing bytes on
// disk rather than a read of the chain back (each object's first change
// since the store was opened, or a before that is not the head). ok is
// false when the chain must be read.
func (h *heads) get(key objectKey, before []byte) (head *chainHead, ok bool) {
	h.mu.Lock()
	head, ok = h.m[key]
	s, summed := h.sums[key]
	h.mu.Unlock()
	switch {
	case ok || before == nil:
		return head, ok
	case summed && maphash.Bytes(h.seed, before) == s.sum:
		return &chainHead{frame: s.frame, depth: s.depth, json: before}, true
	}
	return nil, true
}

// put keeps head (nil: the object has no revision), dropping some entry
// when full.
func (h *heads) put(key objectKey, head *chainHead) {
	var sum uint64
	if head != nil {
		sum = maphash.Bytes(h.seed, head.json)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	evict(h.m, key, maxHeads)
	h.m[key] = head
	if head == nil {
		delete(h.sums, key)
		return
	}
	evict(h.sums, key, maxSums)
	h.sums[key] = headSum{frame: head.frame, depth: head.depth, sum: sum}
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

// forget empties the cache (after a prune rewrote chains, or a write
// failed).
func (h *heads) forget() {
	h.mu.Lock()
	defer h.mu.Unlock()
	clear(h.m)
	clear(h.sums)
}
