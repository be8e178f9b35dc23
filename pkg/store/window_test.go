package store

import (
	"context"
	"errors"
	"testing"
)

// TestSubscribeFrom: a subscription that resumes after a resourceVersion is
// given exactly the changes the store applied after it (relist diffs
// included), then the live ones; one that asks for what the window no
// longer holds, or for the future, is refused with the error a WATCH
// endpoint maps to 410 or a retry.
func TestSubscribeFrom(t *testing.T) {
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
		from   string
		keep   func(Key) bool
		want   []string
		err    error
	}{
		{name: "from the list", window: 10, from: "10",
			want: []string{"Applied a/x@11 old=5", "Applied b/z@12", "Deleted a/y@13 old=6", "Applied a/x@15 old=11"}},
		{name: "from the middle", window: 10, from: "12",
			want: []string{"Deleted a/y@13 old=6", "Applied a/x@15 old=11"}},
		{name: "from a bookmark", window: 10, from: "14", want: []string{"Applied a/x@15 old=11"}},
		{name: "from now", window: 10, from: "15", want: nil},
		{name: "one namespace", window: 10, from: "10", keep: func(k Key) bool { return k.Namespace == "b" },
			want: []string{"Applied b/z@12"}},
		{name: "window holds the last two", window: 2, from: "13", want: []string{"Applied a/x@15 old=11"}},
		{name: "window edge", window: 2, from: "12", want: []string{"Deleted a/y@13 old=6", "Applied a/x@15 old=11"}},
		{name: "evicted", window: 2, from: "11", err: ErrTooOld},
		{name: "before the first list", window: 10, from: "9", err: ErrTooOld},
		{name: "no window", window: 0, from: "15", err: ErrTooOld},
		{name: "future", window: 10, from: "16", err: ErrTooLarge},
		{name: "not a number", window: 10, from: "abc", err: ErrInvalidResourceVersion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(Options[*obj]{Window: tt.window})
			mustApply(t, s, setup...)
			sub, err := s.SubscribeFrom(context.Background(), tt.from, SubscribeOptions{Keep: tt.keep})
			if !errors.Is(err, tt.err) {
				t.Fatalf("SubscribeFrom(%q) error = %v, want %v", tt.from, err, tt.err)
			}
			if err != nil {
				return
			}
			defer sub.Close()
			if d := diffStrings(describeAll(drain(t, sub)), tt.want); d != "" {
				t.Errorf("replayed changes:\n%s", d)
			}
			mustApply(t, s, applyEv("b/w@20"))
			if got := describe(next(t, sub)); got != "Applied b/w@20" {
				t.Errorf("live change = %q, want Applied b/w@20", got)
			}
		})
	}
}

// TestSubscribeFromAcrossRelist: a relist empties the window, as the API
// server's watch cache does: a resume from before its resourceVersion (or
// from one its changes carried) is ErrTooOld, so the client lists again;
// one from its resourceVersion gets the live changes after it.
func TestSubscribeFromAcrossRelist(t *testing.T) {
	s := New(Options[*obj]{Window: 100})
	mustApply(t, s, relist("10", "a/x@5", "a/y@6", "a/z@7")...)
	mustApply(t, s, applyEv("a/x@11"))
	mustApply(t, s, relist("20", "a/x@11", "a/y@18", "a/n@19")...)
	for _, from := range []string{"10", "11", "18", "19"} {
		if _, err := s.SubscribeFrom(context.Background(), from, SubscribeOptions{}); !errors.Is(err, ErrTooOld) {
			t.Errorf("SubscribeFrom(%s) after the relist at 20: error = %v, want ErrTooOld", from, err)
		}
	}
	sub, err := s.SubscribeFrom(context.Background(), "20", SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if got := describeAll(drain(t, sub)); len(got) != 0 {
		t.Errorf("replayed from the relist's resourceVersion: %v, want nothing", got)
	}
	mustApply(t, s, applyEv("a/x@21"))
	if got := describe(next(t, sub)); got != "Applied a/x@21 old=11" {
		t.Errorf("live change = %q, want Applied a/x@21 old=11", got)
	}
}

// TestSubscribeFromNotSynced: nothing to resume from before the first list.
func TestSubscribeFromNotSynced(t *testing.T) {
	s := New(Options[*obj]{Window: 10})
	if _, err := s.SubscribeFrom(context.Background(), "1", SubscribeOptions{}); !errors.Is(err, ErrNotSynced) {
		t.Fatalf("error = %v, want ErrNotSynced", err)
	}
}
