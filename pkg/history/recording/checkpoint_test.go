package recording

import "testing"

// TestDueCheckpoints: a checkpoint is due once checkpointAfter revisions
// were written and the record moved, not while a whole state is written;
// once one was taken, none is due early again; none is due early for a
// record that has one.
func TestDueCheckpoints(t *testing.T) {
	woken := func(d *dueCheckpoints) bool {
		select {
		case <-d.wake:
			return true
		default:
			return false
		}
	}
	d := newDueCheckpoints()
	d.wrote("configmaps.v1.", 0, checkpointAfter) // a whole state, the record not moved yet
	if woken(d) {
		t.Fatal("due while a whole state is written")
	}
	d.wrote("secrets.v1.", 10, checkpointAfter-1)
	if woken(d) {
		t.Fatal("due before checkpointAfter revisions")
	}
	d.wrote("configmaps.v1.", 12, 0) // the state's end
	d.wrote("configmaps.v1.", 13, 1)
	if !woken(d) || woken(d) {
		t.Fatal("not due once, after the state's end")
	}
	d.checkpointed()
	d.wrote("configmaps.v1.", 14, 2*checkpointAfter)
	if woken(d) {
		t.Fatal("due early after a checkpoint")
	}

	d = newDueCheckpoints() // a restart: configmaps' record has a checkpoint
	d.hasOne("configmaps.v1.")
	d.wrote("configmaps.v1.", 20, 2*checkpointAfter)
	if woken(d) {
		t.Fatal("due early for a record that has a checkpoint")
	}
	d.wrote("secrets.v1.", 21, checkpointAfter)
	if !woken(d) {
		t.Fatal("not due for a record without one")
	}
}
