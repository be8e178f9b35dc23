package store

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// obj is the smallest Object: a key, a resourceVersion and a payload that
// tests use to tag a generation.
type obj struct{ ns, name, rv, payload string }

func (o *obj) GetNamespace() string       { return o.ns }
func (o *obj) GetName() string            { return o.name }
func (o *obj) GetResourceVersion() string { return o.rv }

func (o *obj) String() string { return KeyOf(o).String() + "@" + o.rv }

type ev = watch.Event[*obj]

// mk parses "ns/name@rv" (or "name@rv" for a cluster-scoped object).
func mk(spec string) *obj {
	id, rv, ok := strings.Cut(spec, "@")
	if !ok {
		panic("mk: no @rv in " + spec)
	}
	o := &obj{name: id, rv: rv}
	if ns, name, ok := strings.Cut(id, "/"); ok {
		o.ns, o.name = ns, name
	}
	return o
}

// relist is the event sequence of a whole list: Init, one InitApply per
// spec in list order, InitDone at rv.
func relist(rv string, specs ...string) []ev {
	evs := []ev{{Type: watch.Init}}
	for _, spec := range specs {
		evs = append(evs, ev{Type: watch.InitApply, Object: mk(spec)})
	}
	return append(evs, ev{Type: watch.InitDone, ResourceVersion: rv})
}

func applyEv(spec string) ev {
	o := mk(spec)
	return ev{Type: watch.Apply, Object: o, ResourceVersion: o.rv}
}

func deleteEv(spec string) ev {
	o := mk(spec)
	return ev{Type: watch.Delete, Object: o, ResourceVersion: o.rv}
}

func bookmarkEv(rv string) ev { return ev{Type: watch.Bookmark, ResourceVersion: rv} }

// script concatenates event slices and single events into one script.
func script(parts ...any) []ev {
	var out []ev
	for _, p := range parts {
		switch p := p.(type) {
		case ev:
			out = append(out, p)
		case []ev:
			out = append(out, p...)
		default:
			panic(fmt.Sprintf("script: %T", p))
		}
	}
	return out
}

func mustApply(t testing.TB, s *Store[*obj], evs ...ev) {
	t.Helper()
	for _, e := range evs {
		if err := s.Apply(context.Background(), e); err != nil {
			t.Fatalf("Apply(%v): %v", e.Type, err)
		}
	}
}

// describe renders a change as "Applied ns/name@rv old=rv", "Deleted ..." or
// the marker's name.
func describe(c Change[*obj]) string {
	if c.Type == Synced || c.Type == Resync {
		return c.Type.String()
	}
	s := fmt.Sprintf("%v %v", c.Type, c.Object)
	if c.Key != KeyOf(c.Object) {
		s += fmt.Sprintf(" (key %v!)", c.Key)
	}
	if c.HasOld {
		s += " old=" + c.Old.rv
	}
	if c.OldUnknown {
		s += " old-unknown"
	}
	return s
}

func describeAll(cs []Change[*obj]) []string {
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		out = append(out, describe(c))
	}
	return out
}

// drain returns every change queued for sub right now, without blocking.
func drain(t testing.TB, sub *Subscription[*obj]) []Change[*obj] {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out []Change[*obj]
	for {
		c, err := sub.Next(ctx)
		if errors.Is(err, context.Canceled) {
			return out
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		out = append(out, c)
	}
}

// next waits up to a few seconds for sub's next change.
func next(t testing.TB, sub *Subscription[*obj]) Change[*obj] {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := sub.Next(ctx)
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	return c
}

// state renders the store's List as "ns/name@rv" strings.
func state(s *Store[*obj]) []string { return describeObjects(s.List(nil)) }

// describeObjects renders objects as "ns/name@rv" strings.
func describeObjects(objs []*obj) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.String())
	}
	return out
}

func diffStrings(got, want []string) string {
	if slices.Equal(got, want) {
		return ""
	}
	return fmt.Sprintf("\n got: %q\nwant: %q", got, want)
}

// view is what a subscriber knows, rebuilt from its changes. apply checks
// the contract on Old: it is exactly the version the subscriber saw last
// for that key (compared by resourceVersion), and HasOld is false exactly
// when the subscriber holds no version of it.
type view struct {
	items   map[Key]*obj
	synced  int
	resyncs int
}

func newView() *view { return &view{items: map[Key]*obj{}} }

func (v *view) apply(c Change[*obj]) error {
	switch c.Type {
	case Synced:
		v.synced++
		return nil
	case Resync:
		v.resyncs++
		clear(v.items)
		return nil
	case Applied, Deleted:
	default:
		return fmt.Errorf("unknown change type %v", c.Type)
	}
	if c.Key != KeyOf(c.Object) {
		return fmt.Errorf("%v: key %v does not match the object", describe(c), c.Key)
	}
	seen, had := v.items[c.Key]
	switch {
	case had != c.HasOld:
		return fmt.Errorf("%v: HasOld=%v but the subscriber holds %v", describe(c), c.HasOld, seen)
	case had && seen.rv != c.Old.rv:
		return fmt.Errorf("%v: Old=%v but the subscriber last saw %v", describe(c), c.Old, seen)
	}
	if c.Type == Applied {
		v.items[c.Key] = c.Object
	} else {
		delete(v.items, c.Key)
	}
	return nil
}

// equal reports how the view differs from the store's state (by rv).
func (v *view) equal(s *Store[*obj]) string {
	var got []string
	for _, k := range slices.SortedFunc(maps.Keys(v.items), CompareKeys) {
		got = append(got, v.items[k].String())
	}
	return diffStrings(got, state(s))
}

// queued is the number of pending entries (changes and markers) of sub,
// and of the keys among them (coalescing) or its changes (ordered).
func queued(sub *Subscription[*obj]) (entries, pending int) {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	switch q := sub.queue.(type) {
	case *coalescingQueue[*obj]:
		return q.len(), len(q.pending)
	case *orderedQueue[*obj]:
		n := 0
		for _, c := range q.changes[q.head:] {
			if !isMarker(c.Type) {
				n++
			}
		}
		return q.len(), n
	}
	panic("unknown queue")
}

// queueCap is the capacity sub's queue holds, and whether a resync is due.
func queueCap(sub *Subscription[*obj]) (capacity int, resync bool) {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	switch q := sub.queue.(type) {
	case *coalescingQueue[*obj]:
		return cap(q.order), sub.resync
	case *orderedQueue[*obj]:
		return cap(q.changes), sub.resync
	}
	panic("unknown queue")
}

func subCount(s *Store[*obj]) int {
	s.subsMu.Lock()
	defer s.subsMu.Unlock()
	return len(s.subs)
}
