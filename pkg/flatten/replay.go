package flatten

import (
	"github.com/kubectl-reflect/kubectl-reflect/pkg/output"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// Replay says that the i-th kind starts with a replay (watch --since: its
// state at a resourceVersion, then the changes recorded since, the last
// at seam; 0: none). While any kind's replay goes on, Print holds every
// kind's events; once each kind has listed and come to its seam (or
// ended for good), it prints the states in the order the kinds were
// given, then the changes of every kind merged in resourceVersion order
// (each kind's in the order applied), then goes on live. Without it a
// later kind's replay would print after an earlier kind's, whatever
// happened when. Call it before Print.
func (s *Stream) Replay(i int, seam uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kinds[i].seam, s.kinds[i].replaying = seam, true
	s.replaying = true
}

// replay is what Print holds of a kind while a replay is held.
type replay struct {
	seam      uint64
	replaying bool           // Replay was called for the kind
	reached   bool           // a change at or after seam was read
	states    []output.Event // its initial state
	held      []heldEvent    // its changes since
}

// heldEvent is a change held, at the resourceVersion it was applied at.
type heldEvent struct {
	ev output.Event
	rv uint64
}

// hold reads every kind's subscription into what it holds; over says the
// replay is: every kind ended, or listed and (when it replays) came to its
// seam.
func (s *Stream) hold() (over bool, err error) {
	over = true
	for _, k := range s.snapshot() {
		if err := s.holdKind(k); err != nil {
			return false, err
		}
		if !k.ended.Load() && (!k.synced || k.replaying && !k.reached) {
			over = false
		}
	}
	return over, nil
}

// holdKind reads k's subscription into k's state and held changes.
func (s *Stream) holdKind(k *kind) error {
	for {
		synced := k.synced
		evs, c, ok, err := s.take(k, nil)
		if err != nil || !ok {
			return err
		}
		rv, _ := store.ParseRV(c.ResourceVersion)
		if rv >= k.seam {
			k.reached = true // a list instead of the replay comes to it too
		}
		if !synced {
			k.states = append(k.states, evs...) // the state, at the first sync
			continue
		}
		for _, ev := range evs {
			k.held = append(k.held, heldEvent{ev: ev, rv: rv})
		}
	}
}

// release prints what the replay held: the kinds' states in the order
// given, then their changes merged in resourceVersion order.
func (s *Stream) release(e *emitter) (done bool, err error) {
	kinds := s.snapshot()
	for _, k := range kinds {
		for _, ev := range k.states {
			if done, err := e.emit(ev); done || err != nil {
				return true, err
			}
		}
		k.states = nil
	}
	for {
		var next *kind
		for _, k := range kinds {
			if len(k.held) > 0 && (next == nil || k.held[0].rv < next.held[0].rv) {
				next = k
			}
		}
		if next == nil {
			return false, e.p.Flush()
		}
		ev := next.held[0].ev
		next.held = next.held[1:]
		if done, err := e.emit(ev); done || err != nil {
			return true, err
		}
	}
}
