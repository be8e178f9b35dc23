package cmd

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/output"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// Run watches every kind until ctx ends, --timeout passes, --max-events
// events are printed, or every kind has failed.
func (o *WatchOptions) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if o.Timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	printer, err := output.New(o.Out, output.Options{
		Format: o.Output, AllNamespaces: o.AllNamespaces, NoHeaders: o.NoHeaders, Color: o.color,
		ShowKind: len(o.resources) > 1, Diff: o.Diff,
	})
	if err != nil {
		return err
	}
	table := !o.Diff && (o.Output == "" || o.Output == "wide")
	reflectors, err := o.reflectors(table, object.Prune{ManagedFields: !o.ShowManagedFields})
	if err != nil {
		return err
	}
	stopOnClosedOutput(ctx, o.Out, cancel)

	batches := make(chan []output.Event, 64)
	report := newReporter(o.ErrOut, o.progress)
	var wg sync.WaitGroup
	var failures int
	var mu sync.Mutex
	for _, r := range reflectors {
		sub := r.store.Subscribe(ctx, store.SubscribeOptions{})
		wg.Go(func() { o.forward(ctx, r, sub, batches) })
		wg.Go(func() {
			if err := r.run(ctx, watch.Options{DisableStreamingList: !o.StreamingList}, report); err != nil {
				report.errorf("%v", err)
				mu.Lock()
				failures++
				if failures == len(reflectors) {
					cancel()
				}
				mu.Unlock()
			}
		})
	}
	perr := o.print(ctx, printer, batches)
	cancel()
	wg.Wait()
	if perr != nil {
		return perr
	}
	if failures > 0 {
		return errReported
	}
	return nil
}

// print writes batches until ctx ends or --max-events is reached, flushing
// whenever no batch is waiting.
func (o *WatchOptions) print(ctx context.Context, p output.Printer, batches <-chan []output.Event) error {
	printed := 0
	for {
		select {
		case <-ctx.Done():
			return p.Flush()
		case batch := <-batches:
			for _, ev := range batch {
				if err := p.Print(ev); err != nil {
					return err
				}
				printed++
				if o.MaxEvents > 0 && printed >= o.MaxEvents {
					return p.Flush()
				}
			}
			if len(batches) == 0 {
				if err := p.Flush(); err != nil {
					return err
				}
			}
		}
	}
}

// forward turns one kind's subscription into printable batches: the
// initial state as one batch (unless --watch-only), then every change.
func (o *WatchOptions) forward(ctx context.Context, r *reflector, sub *store.Subscription[*object.Object], out chan<- []output.Event) {
	t := newTracker()
	var initial []output.Event
	synced := false
	for {
		c, err := sub.Next(ctx)
		if err != nil {
			return
		}
		events := t.track(c)
		if c.Type == store.Synced && !synced {
			synced = true
			events, initial = append(initial, events...), nil
			if o.WatchOnly {
				events = nil
			}
		}
		batch := o.toEvents(r, events)
		if !synced {
			initial = append(initial, batch...)
			continue
		}
		if len(batch) == 0 {
			continue
		}
		select {
		case out <- batch:
		case <-ctx.Done():
			return
		}
	}
}

func (o *WatchOptions) toEvents(r *reflector, events []output.Event) []output.Event {
	kept := events[:0]
	for _, ev := range events {
		if ev.Kind == nil { // raw tracker event: fill in the kind
			ev.Kind, ev.Columns = kindOf(r.client.Resource()), r.client.Columns()
		}
		if o.events[ev.Type] {
			kept = append(kept, ev)
		}
	}
	return kept
}

func kindOf(res kube.Resource) *output.Kind {
	return &output.Kind{Kind: res.Kind, Group: res.GVR.Group, Resource: res.GVR.Resource, Namespaced: res.Namespaced}
}

// reporter writes warnings, errors and list progress to stderr.
type reporter struct {
	mu       sync.Mutex
	w        interface{ Write([]byte) (int, error) }
	terminal bool
	last     time.Time
	shown    bool
}

func newReporter(w interface{ Write([]byte) (int, error) }, terminal bool) *reporter {
	return &reporter{w: w, terminal: terminal}
}

func (r *reporter) line(prefix, format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clearLocked()
	fmt.Fprintf(r.w, prefix+format+"\n", args...)
}

func (r *reporter) errorf(format string, args ...any) { r.line("error: ", format, args...) }
func (r *reporter) warnf(format string, args ...any)  { r.line("warning: ", format, args...) }

// progress shows how many objects of a kind were listed so far, on a
// terminal only, at most every 200 ms.
func (r *reporter) progress(kind string, n int) {
	if !r.terminal {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if now := time.Now(); now.Sub(r.last) >= 200*time.Millisecond {
		r.last = now
		r.shown = true
		fmt.Fprintf(r.w, "\r\033[Klisting %s: %d objects", kind, n)
	}
}

func (r *reporter) progressDone(string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clearLocked()
}

func (r *reporter) clearLocked() {
	if r.shown {
		fmt.Fprint(r.w, "\r\033[K")
		r.shown = false
	}
}
