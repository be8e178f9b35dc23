package watch

import (
	"context"
	"errors"
	"testing"
)

// TestAdapters: Applied passes on the objects of exactly its event types,
// and passes back the errors of the function it adapts.
func TestAdapters(t *testing.T) {
	adapters := []struct {
		name  string
		adapt func(func(context.Context, obj) error) Handler[obj]
		pass  []EventType
	}{
		{"Applied", Applied[obj], []EventType{InitApply, Apply}},
	}
	all := []EventType{Init, InitApply, InitDone, Apply, Delete, Bookmark}
	for _, a := range adapters {
		for _, typ := range all {
			t.Run(a.name+"/"+typ.String(), func(t *testing.T) {
				want := false
				for _, p := range a.pass {
					want = want || p == typ
				}
				var got []obj
				h := a.adapt(func(_ context.Context, o obj) error {
					got = append(got, o)
					return errBoom
				})
				ev := Event[obj]{Type: typ, Object: obj{"a", "5"}, ResourceVersion: "5"}
				err := h(t.Context(), ev)
				if want {
					if len(got) != 1 || got[0] != ev.Object || !errors.Is(err, errBoom) {
						t.Errorf("got %v, %v; want the object passed on and its error back", got, err)
					}
				} else if len(got) != 0 || err != nil {
					t.Errorf("got %v, %v; want nothing passed on and no error", got, err)
				}
			})
		}
	}
}

// TestStrings names states and event types, and the ones out of range.
func TestStrings(t *testing.T) {
	tests := []struct{ got, want string }{
		{StateEmpty.String(), "Empty"},
		{StateListing.String(), "Listing"},
		{StateStreaming.String(), "Streaming"},
		{StateWatchPending.String(), "WatchPending"},
		{StateWatching.String(), "Watching"},
		{State(9).String(), "State(9)"},
		{Init.String(), "Init"},
		{InitApply.String(), "InitApply"},
		{InitDone.String(), "InitDone"},
		{Apply.String(), "Apply"},
		{Delete.String(), "Delete"},
		{Bookmark.String(), "Bookmark"},
		{EventType(0).String(), "EventType(0)"},
		{EventType(7).String(), "EventType(7)"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("String() = %q, want %q", tc.got, tc.want)
		}
	}
}
