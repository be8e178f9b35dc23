package daemon

import "sync"

// checkpointAfter is how many revisions a resource's record gains before
// a checkpoint is due, ahead of the next prune's: a state is read from the
// checkpoint nearest to it and the revisions between, and without one
// from every object's latest revision. A daemon's first recording of
// 100,000 ConfigMaps had none for ten minutes (get --at read the state
// in 3.1 s; from a checkpoint, in about 1.3 s).
const checkpointAfter = 10_000

// dueCheckpoints counts the revisions each resource's record gained since
// the last checkpoint, and wakes the pruner (wake) when one is due.
type dueCheckpoints struct {
	mu    sync.Mutex
	since map[string]int
	wake  chan struct{} // holds one wake-up at most
}

func newDueCheckpoints() *dueCheckpoints {
	return &dueCheckpoints{since: map[string]int{}, wake: make(chan struct{}, 1)}
}

// wrote is history.RecorderOptions.OnWrite: res's record gained n
// revisions and is complete to rv (0 while a whole state is written: a
// checkpoint then would be of the state before it). A checkpoint is due
// once checkpointAfter revisions were written and the record moved.
func (d *dueCheckpoints) wrote(res string, rv uint64, n int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.since[res] += n
	if rv > 0 && d.since[res] >= checkpointAfter {
		select {
		case d.wake <- struct{}{}:
		default:
		}
	}
}

// taken starts the counts again: every resource was checkpointed.
func (d *dueCheckpoints) taken() {
	d.mu.Lock()
	defer d.mu.Unlock()
	clear(d.since)
}
