package history

import "sync"

// maxHeads bounds the chain heads a store keeps in memory to encode
// revisions against: the objects that change often stay, and a miss
// costs one read of the object's chain from the store.
const maxHeads = 4096

// heads caches the chain heads (codec.go) of recently written objects.
type heads struct {
	mu sync.Mutex
	m  map[objectKey]*chainHead
}

// objectKey names one object of one resource.
type objectKey struct {
	resource        int64
	namespace, name string
}

func newHeads() *heads { return &heads{m: map[objectKey]*chainHead{}} }

func (h *heads) get(key objectKey) (*chainHead, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	head, ok := h.m[key]
	return head, ok
}

// put keeps head (nil: the object has no revision), dropping some entry
// when full.
func (h *heads) put(key objectKey, head *chainHead) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.m[key]; !ok && len(h.m) >= maxHeads {
		for old := range h.m { // any one: map order is random enough
			delete(h.m, old)
			break
		}
	}
	h.m[key] = head
}

// forget empties the cache (after a prune rewrote chains, or a write
// failed).
func (h *heads) forget() {
	h.mu.Lock()
	defer h.mu.Unlock()
	clear(h.m)
}
