package store

// queue holds a subscription's pending changes in one Mode; the
// subscription's lock guards it. Markers (Synced, Resync) are always queued;
// add refuses a change when bound changes are queued already (bound < 0: no
// bound), and the subscription then resyncs.
type queue[T Object] interface {
	add(c Change[T], bound int) bool
	next() (Change[T], bool)
	drop() // forgets every pending change and releases the memory
	len() int
}

func isMarker(t ChangeType) bool { return t == Synced || t == Resync }

// coalescingQueue keeps at most one pending change per key, in the slot of
// the key's first pending change.
type coalescingQueue[T Object] struct {
	order   []entry // pending entries in arrival order, from head on
	head    int
	pending map[Key]Change[T]
	peak    int // the most keys pending since pending was made
}

// entry is a place in a coalescingQueue: a key's pending change, or a
// marker.
type entry struct {
	key    Key
	marker ChangeType // Synced or Resync; 0 for a key's change
	rv     string     // the marker's ResourceVersion
}

func newCoalescingQueue[T Object]() *coalescingQueue[T] {
	return &coalescingQueue[T]{pending: map[Key]Change[T]{}}
}

func (q *coalescingQueue[T]) add(c Change[T], bound int) bool {
	if isMarker(c.Type) {
		q.append(entry{marker: c.Type, rv: c.ResourceVersion})
		return true
	}
	if prev, ok := q.pending[c.Key]; ok { // latest wins, Old as the subscriber saw it
		c.Old, c.HasOld = prev.Old, prev.HasOld
		q.pending[c.Key] = c
		return true
	}
	if bound >= 0 && len(q.pending) >= bound {
		return false
	}
	q.append(entry{key: c.Key})
	q.pending[c.Key] = c
	q.peak = max(q.peak, len(q.pending))
	return true
}

func (q *coalescingQueue[T]) append(e entry) {
	if q.head > 0 && q.head >= len(q.order)/2 { // reuse the consumed half
		n := copy(q.order, q.order[q.head:])
		q.order, q.head = q.order[:n], 0
	}
	q.order = append(q.order, e)
}

func (q *coalescingQueue[T]) next() (Change[T], bool) {
	for q.head < len(q.order) {
		e := q.order[q.head]
		q.order[q.head] = entry{}
		q.head++
		if e.marker != 0 {
			return Change[T]{Type: e.marker, ResourceVersion: e.rv}, true
		}
		if c, ok := q.pending[e.key]; ok {
			delete(q.pending, e.key)
			return c, true
		}
	}
	q.order, q.head = q.order[:0], 0
	if q.peak > keptCapacity { // a map never shrinks: release a join's or a burst's
		q.pending, q.peak = map[Key]Change[T]{}, 0
	}
	return Change[T]{}, false
}

func (q *coalescingQueue[T]) drop() {
	q.order, q.head = nil, 0
	q.pending, q.peak = map[Key]Change[T]{}, 0
}

func (q *coalescingQueue[T]) len() int { return len(q.order) - q.head }

// orderedQueue keeps every change in arrival order.
type orderedQueue[T Object] struct {
	changes []Change[T] // pending from head on; consumed slots are zeroed
	head    int
}

// keptCapacity is the most an empty queue keeps of the capacity a join or
// a burst made it grow to.
const keptCapacity = 1024

func (q *orderedQueue[T]) add(c Change[T], bound int) bool {
	if !isMarker(c.Type) && bound >= 0 && q.len() >= bound {
		return false
	}
	if q.head > 0 && q.head >= len(q.changes)/2 { // reuse the consumed half
		n := copy(q.changes, q.changes[q.head:])
		clear(q.changes[n:]) // the moved entries' old slots hold objects
		q.changes, q.head = q.changes[:n], 0
	}
	q.changes = append(q.changes, c)
	return true
}

func (q *orderedQueue[T]) next() (Change[T], bool) {
	if q.head == len(q.changes) {
		return Change[T]{}, false
	}
	c := q.changes[q.head]
	q.changes[q.head] = Change[T]{} // release the objects it holds
	q.head++
	if q.head == len(q.changes) {
		q.changes, q.head = q.changes[:0], 0
		if cap(q.changes) > keptCapacity {
			q.changes = nil
		}
	}
	return c, true
}

func (q *orderedQueue[T]) drop() { q.changes, q.head = nil, 0 }

func (q *orderedQueue[T]) len() int { return len(q.changes) - q.head }
