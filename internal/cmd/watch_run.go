package cmd

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/output"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// Run watches every kind until ctx ends, --timeout passes, --max-events
// events are printed, or every kind has failed. It fails when --timeout
// passed before some kind was ever listed (see notListed).
func (o *WatchOptions) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if o.Timeout > 0 {
		ctx, cancel = context.WithTimeoutCause(ctx, o.Timeout, errWatchTimeout)
		defer cancel()
	}
	printer, err := output.New(o.Out, o.printOpts)
	if err != nil {
		return err
	}
	// A table's rows are cells and metadata (watch never sorts), and a name
	// is metadata.
	table := !o.Diff && o.PrintFlags.table()
	read := kube.Scope{
		Table: table && !o.noServerPrint, MetadataOnly: table || !o.Diff && o.PrintFlags.format() == "name",
		Prune: object.Prune{ManagedFields: !o.PrintFlags.JSONYamlPrintFlags.ShowManagedFields},
	}
	report := newReporter(o.ErrOut, o.progress)
	opts := o.streamOptions()
	leases, release, err := o.acquire(reflector.SetOptions{Watch: &opts, Hooks: report.hooks(true)}, read)
	if err != nil {
		return err
	}
	defer release()
	stopOnClosedOutput(ctx, o.Out, cancel)

	// A reflector per kind writes its store; this goroutine reads every
	// subscription and prints, woken through one shared channel.
	wake := make(chan struct{}, 1)
	streams := make([]*stream, len(leases))
	var wg sync.WaitGroup
	var failures int
	var mu sync.Mutex
	for i, l := range leases {
		streams[i] = &stream{
			kind: kindOf(l.Resource()), src: l, tracker: store.NewTracker[*object.Object](),
			// Ordered: a printed stream shows every change, in the order
			// applied, as kubectl's get -w does.
			sub: l.Subscribe(ctx, store.SubscribeOptions{Mode: store.Ordered, Wake: wake}),
		}
		s := streams[i]
		wg.Go(func() {
			select {
			case <-l.Done():
			case <-ctx.Done():
				return
			}
			if err := l.Err(); err != nil {
				o.reportFailure(report, err)
				s.end(wake)
				mu.Lock()
				failures++
				if failures == len(leases) {
					cancel()
				}
				mu.Unlock()
			}
		})
		if src, names := o.sources[i], o.names(o.sources[i]); len(names) > 0 { // leases follow o.sources
			wg.Go(func() { noteMissing(ctx, l, names, src.namespace, report) })
		}
	}
	perr := o.print(ctx, printer, streams, wake)
	cancel()
	wg.Wait()
	if perr != nil {
		return perr
	}
	if failures > 0 {
		return errReported
	}
	return notListed(ctx, o.Timeout, streams)
}

// stream is one kind's subscription as the printer reads it.
type stream struct {
	kind    *output.Kind
	src     reflected
	sub     *store.Subscription[*object.Object]
	tracker *store.Tracker[*object.Object]
	exact   []store.Change[*object.Object] // the tracker's output, reused
	initial []output.Event                 // events before the first Synced
	synced  bool
	ended   atomic.Bool // its reflector failed for good: it will never sync
}

// reflected is what watch reads of one kind beside its subscription: a
// reflector.Lease (tests give a store).
type reflected interface {
	Resource() kube.Resource
	Columns() []object.Column
	Synced() <-chan struct{}
	Get(store.Key) (*object.Object, bool)
}

// end marks s as ended and wakes the printer, so that the kinds after it
// do not wait for its list.
func (s *stream) end(wake chan<- struct{}) {
	s.ended.Store(true)
	select {
	case wake <- struct{}{}:
	default:
	}
}

// listed says whether the kinds after s may print: s printed its initial
// state, or never will.
func (s *stream) listed() bool { return s.synced || s.ended.Load() }

// print prints what the subscriptions carry until ctx ends or --max-events
// is reached, flushing whenever they have nothing more.
func (o *WatchOptions) print(ctx context.Context, p output.Printer, streams []*stream, wake <-chan struct{}) error {
	printed := 0
	var batch []output.Event
	for {
		n := 0
		for _, s := range streams {
			var err error
			if batch, err = o.drain(s, batch[:0]); err != nil {
				return p.Flush() // closed: ctx ended
			}
			for _, ev := range batch {
				if err := p.Print(ev); err != nil {
					return err
				}
				if printed++; o.MaxEvents > 0 && printed >= o.MaxEvents {
					return p.Flush()
				}
			}
			n += len(batch)
			if !s.listed() {
				break // the kinds after s wait for its list: kinds print in the order given
			}
		}
		if n > 0 {
			if err := p.Flush(); err != nil {
				return err
			}
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return p.Flush()
		}
	}
}

// drain appends to out the events queued for s: nothing until its first
// sync, then the initial state at once (unless --watch-only), then every
// change.
func (o *WatchOptions) drain(s *stream, out []output.Event) ([]output.Event, error) {
	for {
		c, ok, err := s.sub.TryNext()
		if err != nil || !ok {
			return out, err
		}
		if s.synced {
			out = o.track(s, c, out)
			continue
		}
		s.initial = o.track(s, c, s.initial)
		if c.Type == store.Synced {
			s.synced = true
			if !o.WatchOnly {
				out = append(out, s.initial...)
			}
			s.initial = nil
		}
	}
}

// track appends the printable events of c to dst: the exact changes of
// s's tracker, those --events asks for.
func (o *WatchOptions) track(s *stream, c store.Change[*object.Object], dst []output.Event) []output.Event {
	s.exact = s.tracker.Track(c, s.exact[:0])
	for _, e := range s.exact {
		ev := output.Event{Type: output.Applied, Kind: s.kind, Object: e.Object, Columns: s.src.Columns()}
		switch {
		case e.Type == store.Deleted:
			ev.Type = output.Deleted
		case e.HasOld:
			ev.Old = e.Old
		}
		if o.events[ev.Type] {
			dst = append(dst, ev)
		}
	}
	return dst
}

func kindOf(res kube.Resource) *output.Kind {
	return &output.Kind{Kind: res.Kind, Group: res.GVR.Group, Version: res.GVR.Version, Resource: res.GVR.Resource, Namespaced: res.Namespaced}
}

// reportFailure reports a kind that failed for good: as `error: ...`, or,
// for get -w, in kubectl get's words (output.KubectlError).
func (o *WatchOptions) reportFailure(report *reporter, err error) {
	if o.kubectlErrors {
		report.line("", "%s", output.KubectlError(err, true))
		return
	}
	report.errorf("%v", err)
}
