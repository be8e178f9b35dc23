package store

import (
	"context"
	"errors"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

type wev = watch.WatchEvent[*obj]

func wire(typ watch.WatchEventType, spec string) wev { return wev{Type: typ, Object: mk(spec)} }

// TestStateAt: the state at any resourceVersion the window reaches back
// to is the current state with the later changes undone, whether a change
// carries that resourceVersion or not; before the window, or after the
// store, it is the error a LIST with resourceVersionMatch=Exact maps to
// 410 or 504.
func TestStateAt(t *testing.T) {
	setup := script(
		relist("10", "a/x@5", "a/y@6"),
		applyEv("a/x@11"),
		applyEv("b/z@12"),
		deleteEv("a/y@13"),
		bookmarkEv("14"),
		applyEv("a/x@15"),
	)
	tests := []struct {
		name   string
		window int
		at     string
		want   []string
		err    error
	}{
		{name: "the first list", window: 10, at: "10", want: []string{"a/x@5", "a/y@6"}},
		{name: "after a change", window: 10, at: "11", want: []string{"a/x@11", "a/y@6"}},
		{name: "between changes", window: 10, at: "12", want: []string{"a/x@11", "a/y@6", "b/z@12"}},
		{name: "after the delete", window: 10, at: "13", want: []string{"a/x@11", "b/z@12"}},
		{name: "a bookmark", window: 10, at: "14", want: []string{"a/x@11", "b/z@12"}},
		{name: "now", window: 10, at: "15", want: []string{"a/x@15", "b/z@12"}},
		{name: "window edge", window: 2, at: "12", want: []string{"a/x@11", "a/y@6", "b/z@12"}},
		{name: "evicted", window: 2, at: "11", err: ErrTooOld},
		{name: "before the first list", window: 10, at: "9", err: ErrTooOld},
		{name: "no window", window: 0, at: "15", err: ErrTooOld},
		{name: "future", window: 10, at: "16", err: ErrTooLarge},
		{name: "not a number", window: 10, at: "x", err: ErrInvalidResourceVersion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(Options[*obj]{Window: tt.window})
			mustApply(t, s, setup...)
			got, err := s.StateAt(tt.at)
			if !errors.Is(err, tt.err) {
				t.Fatalf("StateAt(%q) error = %v, want %v", tt.at, err, tt.err)
			}
			if d := diffStrings(describeObjects(got), tt.want); err == nil && d != "" {
				t.Errorf("state at %s:\n%s", tt.at, d)
			}
		})
	}
}

// TestBackfill: what a server's watch from an older resourceVersion sent
// up to the first list extends the window back, so that a subscriber
// that holds that resourceVersion resumes (the server's events, then the
// store's), and the state there is known unless a change does not say
// what it changed.
func TestBackfill(t *testing.T) {
	server := []wev{
		wire(watch.WatchModified, "a/y@4"), // y existed before 3: its version then is unknown
		wire(watch.WatchAdded, "a/x@5"),
		wire(watch.WatchModified, "a/y@6"),
		wire(watch.WatchAdded, "a/gone@7"),
		{Type: watch.WatchBookmark, Object: mk("a/b@8")},
		wire(watch.WatchDeleted, "a/gone@9"),
		wire(watch.WatchAdded, "a/later@11"), // after the store's list: dropped
	}
	newStore := func(t *testing.T) *Store[*obj] {
		s := New(Options[*obj]{Window: 10})
		mustApply(t, s, relist("10", "a/x@5", "a/y@6")...)
		mustApply(t, s, applyEv("a/x@12"))
		if err := s.Backfill("3", s.OldestResourceVersion(), server); err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := newStore(t)
	if got := s.OldestResourceVersion(); got != "3" {
		t.Errorf("oldest after the backfill = %q, want 3", got)
	}
	sub, err := s.SubscribeFrom(context.Background(), "3", SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Applied a/y@4 old-unknown", "Applied a/x@5", "Applied a/y@6 old=4", "Applied a/gone@7",
		"Deleted a/gone@9 old=7", "Applied a/x@12 old=5"}
	if d := diffStrings(describeAll(drain(t, sub)), want); d != "" {
		t.Errorf("replayed from 3:\n%s", d)
	}
	sub.Close()
	if _, err := s.SubscribeFrom(context.Background(), "3", SubscribeOptions{NeedOld: true}); !errors.Is(err, ErrTooOld) {
		t.Errorf("SubscribeFrom(3, NeedOld) error = %v, want ErrTooOld (y's version before 4 is unknown)", err)
	}
	sub, err = s.SubscribeFrom(context.Background(), "4", SubscribeOptions{NeedOld: true})
	if err != nil {
		t.Fatalf("SubscribeFrom(4, NeedOld): %v", err)
	}
	sub.Close()
	for at, want := range map[string][]string{
		"4":  {"a/y@4"},
		"5":  {"a/x@5", "a/y@4"},
		"7":  {"a/gone@7", "a/x@5", "a/y@6"},
		"9":  {"a/x@5", "a/y@6"},
		"10": {"a/x@5", "a/y@6"},
	} {
		got, err := s.StateAt(at)
		if err != nil {
			t.Errorf("StateAt(%s): %v", at, err)
			continue
		}
		if d := diffStrings(describeObjects(got), want); d != "" {
			t.Errorf("state at %s:\n%s", at, d)
		}
	}
	var tooOld *TooOldError
	if _, err := s.StateAt("3"); !errors.As(err, &tooOld) || tooOld.Oldest != "4" {
		t.Errorf("StateAt(3) error = %v, want too old, oldest 4", err)
	}
}

// TestBackfillRefused: a backfill that does not fit, comes out of order,
// or was read for a window that has moved since leaves the window as it
// was.
func TestBackfillRefused(t *testing.T) {
	tests := []struct {
		name   string
		window int
		from   string
		oldest string
		events []wev
		err    error
	}{
		{name: "no room", window: 2, from: "3", oldest: "10",
			events: []wev{wire(watch.WatchAdded, "a/p@4"), wire(watch.WatchAdded, "a/q@5")}, err: ErrTooOld},
		{name: "out of order", window: 10, from: "3", oldest: "10",
			events: []wev{wire(watch.WatchAdded, "a/p@6"), wire(watch.WatchAdded, "a/q@5")}, err: ErrInvalidResourceVersion},
		{name: "the window moved", window: 10, from: "3", oldest: "9", err: ErrTooOld},
		{name: "not older", window: 10, from: "10", oldest: "10", err: ErrTooOld},
		{name: "not a number", window: 10, from: "x", oldest: "10", err: ErrInvalidResourceVersion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(Options[*obj]{Window: tt.window})
			mustApply(t, s, relist("10", "a/x@5")...)
			mustApply(t, s, applyEv("a/x@12"))
			if err := s.Backfill(tt.from, tt.oldest, tt.events); !errors.Is(err, tt.err) {
				t.Fatalf("Backfill error = %v, want %v", err, tt.err)
			}
			if got := s.OldestResourceVersion(); got != "10" {
				t.Errorf("oldest = %q, want 10 (unchanged)", got)
			}
		})
	}
}
