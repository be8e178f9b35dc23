package flatten

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/output"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// Source is what a stream reads of one kind beside its subscription: a
// reflector.Handle (tests give a store).
type Source interface {
	Resource() kube.Resource
	Columns() []object.Column
	Synced() <-chan struct{}
	Get(store.Key) (*object.Object, bool)
}

// Options say what a stream prints.
type Options struct {
	// Events are the event types printed (applied, deleted).
	Events map[output.EventType]bool
	// WatchOnly skips each kind's initial state: changes only.
	WatchOnly bool
	// MaxEvents ends Print once that many events are printed (0: never).
	MaxEvents int
}

// Stream is the kinds' subscriptions as one stream. Add the kinds, then
// Print from one goroutine; Add (more kinds, a context that came later)
// and End may be called from any goroutine meanwhile.
type Stream struct {
	opts Options
	wake chan struct{}

	mu    sync.Mutex // guards kinds
	kinds []*kind

	replaying bool // a replay is held (Replay); Print's alone once it runs
}

// New returns an empty stream.
func New(opts Options) *Stream {
	return &Stream{opts: opts, wake: make(chan struct{}, 1)}
}

// Wake is the channel every kind's subscription must wake
// (store.SubscribeOptions.Wake).
func (s *Stream) Wake() chan struct{} { return s.wake }

// Add appends a kind: src's subscription sub, printed as k. It returns
// the kind's index, which End takes.
func (s *Stream) Add(k *output.Kind, src Source, sub *store.Subscription[*object.Object]) int {
	return s.AddIn("", k, src, sub)
}

// AddIn appends a kind of a kubeconfig context (of several: its events
// carry it, output.Event.Context): kinds wait for the lists of the kinds
// before them of their context alone, so that a context whose cluster is
// away holds no other back.
func (s *Stream) AddIn(context string, k *output.Kind, src Source, sub *store.Subscription[*object.Object]) int {
	s.mu.Lock()
	s.kinds = append(s.kinds, &kind{kind: k, context: context, src: src, sub: sub, tracker: store.NewTracker[*object.Object]()})
	i := len(s.kinds) - 1
	s.mu.Unlock()
	s.poke()
	return i
}

// End marks the i-th kind as ended for good (its reflector failed: it
// will never list), so that the kinds after it do not wait for its list.
func (s *Stream) End(i int) {
	s.mu.Lock()
	s.kinds[i].ended.Store(true)
	s.mu.Unlock()
	s.poke()
}

// poke wakes Print.
func (s *Stream) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// snapshot is the kinds added so far.
func (s *Stream) snapshot() []*kind {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clip(s.kinds)
}

// Unlisted are the resources of the kinds whose source never synced.
func (s *Stream) Unlisted() []kube.Resource {
	var out []kube.Resource
	for _, k := range s.snapshot() {
		select {
		case <-k.src.Synced():
		default:
			out = append(out, k.src.Resource())
		}
	}
	return out
}

// kind is one kind's subscription as the printer reads it.
type kind struct {
	kind    *output.Kind
	context string // of several; "" for one
	src     Source
	sub     *store.Subscription[*object.Object]
	tracker *store.Tracker[*object.Object]
	exact   []store.Change[*object.Object] // the tracker's output, reused
	initial []output.Event                 // events before the first Synced
	synced  bool
	ended   atomic.Bool // its reflector failed for good: it will never sync

	replay // what Print holds of it while a replay is held
}

// listed says whether the kinds after k may print: k printed its initial
// state, or never will.
func (k *kind) listed() bool { return k.synced || k.ended.Load() }

// Print prints what the subscriptions carry until ctx ends or MaxEvents
// is reached, flushing whenever they have nothing more. While a replay is
// held (Replay), it gathers instead, and prints the replay whole once it
// is over.
func (s *Stream) Print(ctx context.Context, p output.Printer) error {
	e := &emitter{p: p, max: s.opts.MaxEvents}
	var batch []output.Event
	waiting := map[string]bool{} // contexts whose kinds wait for a kind's list
	for {
		n := 0
		if s.replaying {
			over, err := s.hold()
			if err != nil {
				return p.Flush() // closed: ctx ended
			}
			if over {
				s.replaying = false
				if done, err := s.release(e); done || err != nil {
					return err
				}
			}
		}
		clear(waiting)
		for _, k := range s.snapshot() {
			if s.replaying || waiting[k.context] {
				continue // the kinds of a context print in the order given
			}
			var err error
			if batch, err = s.drain(k, batch[:0]); err != nil {
				return p.Flush() // closed: ctx ended
			}
			for _, ev := range batch {
				if done, err := e.emit(ev); done || err != nil {
					return err
				}
			}
			n += len(batch)
			if !k.listed() {
				waiting[k.context] = true
			}
		}
		if n > 0 {
			if err := p.Flush(); err != nil {
				return err
			}
		}
		select {
		case <-s.wake:
		case <-ctx.Done():
			return p.Flush()
		}
	}
}

// emitter prints events and counts them, up to max (0: no limit).
type emitter struct {
	p            output.Printer
	printed, max int
}

// emit prints ev; done says the stream has printed max events (and is
// flushed).
func (e *emitter) emit(ev output.Event) (done bool, err error) {
	if err := e.p.Print(ev); err != nil {
		return true, err
	}
	if e.printed++; e.max > 0 && e.printed >= e.max {
		return true, e.p.Flush()
	}
	return false, nil
}

// drain appends to out the events queued for k: nothing until its first
// sync, then the initial state at once (unless WatchOnly), then every
// change.
func (s *Stream) drain(k *kind, out []output.Event) ([]output.Event, error) {
	for {
		var (
			ok  bool
			err error
		)
		if out, _, ok, err = s.take(k, out); err != nil || !ok {
			return out, err
		}
	}
}

// take reads the next change queued for k, if any, and appends to out
// the events it makes printable: none before k's first sync, the initial
// state whole at it (unless WatchOnly), a change's own after it.
func (s *Stream) take(k *kind, out []output.Event) (_ []output.Event, c store.Change[*object.Object], ok bool, err error) {
	c, ok, err = k.sub.TryNext()
	if err != nil || !ok {
		return out, c, ok, err
	}
	if k.synced {
		return s.track(k, c, out), c, true, nil
	}
	k.initial = s.track(k, c, k.initial)
	if c.Type == store.Synced {
		k.synced = true
		if !s.opts.WatchOnly {
			out = append(out, k.initial...)
		}
		k.initial = nil
	}
	return out, c, true, nil
}

// track appends the printable events of c to dst: the exact changes of
// k's tracker, those Events asks for.
func (s *Stream) track(k *kind, c store.Change[*object.Object], dst []output.Event) []output.Event {
	k.exact = k.tracker.Track(c, k.exact[:0])
	for _, e := range k.exact {
		ev := output.Event{Type: output.Applied, Kind: k.kind, Object: e.Object, Columns: k.src.Columns(), Context: k.context}
		switch {
		case e.Type == store.Deleted:
			ev.Type = output.Deleted
		case e.HasOld:
			ev.Old = e.Old
		}
		if s.opts.Events[ev.Type] {
			dst = append(dst, ev)
		}
	}
	return dst
}
