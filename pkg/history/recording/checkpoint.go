package recording

import "sync"

// checkpointAfter is how many revisions a resource's record gains before
// a checkpoint is due, ahead of the first prune's: a state is read from
// the checkpoint nearest to it and the revisions between, and without one
// from every object's latest revision. A daemon's first recording of
// 100,000 ConfigMaps had none for ten minutes (get --at read the state
// in 3.1 s; from a checkpoint, in about 1.3 s). Only the first one comes
// early: after it, a checkpoint every ten minutes costs less than one per
// so many revisions of a large kind would (a whole state each). A record
// that has one (a restarted daemon's: its last stop wrote one) is not due
// early: each restart cost a whole state's checkpoint after 10,000
// changes, 0.7 s of CPU for 100,000 ConfigMaps.
const checkpointAfter = 10_000

// dueCheckpoints counts the revisions each resource's record gained until
// the daemon's first checkpoint, and wakes the pruner (wake) when one is
// due.
type dueCheckpoints struct {
	mu    sync.Mutex
	since map[string]int
	has   map[string]bool // the resources whose record has a checkpoint
	taken bool            // a checkpoint was taken: none is due early any more
	wake  chan struct{}   // holds one wake-up at most
}

func newDueCheckpoints() *dueCheckpoints {
	return &dueCheckpoints{since: map[string]int{}, has: map[string]bool{}, wake: make(chan struct{}, 1)}
}

// hasOne says that res's record has a checkpoint already: none is
// due early for it.
func (d *dueCheckpoints) hasOne(res string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.has != nil {
		d.has[res] = true
	}
}

// wrote is history.RecorderOptions.OnWrite: res's record gained n
// revisions and is complete to rv (0 while a whole state is written: a
// checkpoint then would be of the state before it). A checkpoint is due
// once checkpointAfter revisions were written and the record moved, until
// one was taken.
func (d *dueCheckpoints) wrote(res string, rv uint64, n int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.taken || d.has[res] {
		return
	}
	d.since[res] += n
	if rv > 0 && d.since[res] >= checkpointAfter {
		select {
		case d.wake <- struct{}{}:
		default:
		}
	}
}

// checkpointed says that every resource was checkpointed.
func (d *dueCheckpoints) checkpointed() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.taken, d.since, d.has = true, nil, nil
}
