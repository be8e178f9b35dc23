package watch

import (
	"context"
	"errors"
	"testing"
)

// errAny matches any non-nil error in a transition's wantErr.
var errAny = errors.New("any error")

// TestTransitions makes one step of the state machine from each state on
// each answer the server can give, and checks where it lands: the state, the
// resourceVersion and continue token kept, whether streaming lists are still
// on, the events emitted, the request made, and the open watch.
func TestTransitions(t *testing.T) {
	tests := []struct {
		name string
		// The machine before the step.
		from     State
		rv, cont string
		paged    bool              // streaming lists off
		events   []WatchEvent[obj] // of the open watch, for StateStreaming and StateWatching
		end      end
		script   []reply
		// The machine after it.
		wantState      State
		wantRV         string
		wantCont       string
		wantPaged      bool
		wantProgressed bool
		wantErr        error // errors.Is; errAny for any
		wantRelist     bool  // OnRelist told of a 410
		wantEvents     []string
		wantCalls      []string
	}{
		// StateEmpty: Init, then a streaming list or the first page.
		{
			name: "Empty -> Streaming: opens a streaming list", from: StateEmpty,
			script:    []reply{watchOK(block)},
			wantState: StateStreaming, wantEvents: []string{"Init"}, wantCalls: []string{streamingListCall()},
		}, {
			name: "Empty -> Listing: streaming list refused (400), paged from now on", from: StateEmpty,
			script:    []reply{watchFails(badRequest)},
			wantState: StateListing, wantPaged: true, wantEvents: []string{"Init"}, wantCalls: []string{streamingListCall()},
		}, {
			name: "Empty -> Listing: streaming list refused (422), paged from now on", from: StateEmpty,
			script:    []reply{watchFails(invalid)},
			wantState: StateListing, wantPaged: true, wantEvents: []string{"Init"}, wantCalls: []string{streamingListCall()},
		}, {
			name: "Empty -> Empty: streaming list fails (500)", from: StateEmpty,
			script:    []reply{watchFails(internal)},
			wantState: StateEmpty, wantErr: internal, wantEvents: []string{"Init"}, wantCalls: []string{streamingListCall()},
		}, {
			name: "Empty -> Empty: streaming list forbidden", from: StateEmpty,
			script:    []reply{watchFails(forbidden)},
			wantState: StateEmpty, wantErr: forbidden, wantEvents: []string{"Init"}, wantCalls: []string{streamingListCall()},
		}, {
			name: "Empty -> Listing: paged, no request yet", from: StateEmpty, paged: true,
			wantState: StateListing, wantPaged: true, wantEvents: []string{"Init"},
		},
		// StateListing: one page per step.
		{
			name: "Listing -> Listing: a page with more to come keeps its continue token", from: StateListing, paged: true,
			script:    []reply{listOK("8", "c1", "a", "b")},
			wantState: StateListing, wantCont: "c1", wantPaged: true, wantProgressed: true,
			wantEvents: []string{"InitApply a", "InitApply b"}, wantCalls: []string{pageCall("")},
		}, {
			name: "Listing -> Listing: passes the continue token on", from: StateListing, paged: true, cont: "c1",
			script:    []reply{listOK("9", "c2", "c")},
			wantState: StateListing, wantCont: "c2", wantPaged: true, wantProgressed: true,
			wantEvents: []string{"InitApply c"}, wantCalls: []string{pageCall("c1")},
		}, {
			name: "Listing -> WatchPending: the last page, at its RV", from: StateListing, paged: true, cont: "c2",
			script:    []reply{listOK("10", "", "d")},
			wantState: StateWatchPending, wantRV: "10", wantPaged: true, wantProgressed: true,
			wantEvents: []string{"InitApply d", "InitDone 10"}, wantCalls: []string{pageCall("c2")},
		}, {
			name: "Listing -> WatchPending: an empty list", from: StateListing, paged: true,
			script:    []reply{listOK("10", "")},
			wantState: StateWatchPending, wantRV: "10", wantPaged: true, wantProgressed: true,
			wantEvents: []string{"InitDone 10"}, wantCalls: []string{pageCall("")},
		}, {
			name: "Listing -> Empty: the continue token expired (410), no error", from: StateListing, paged: true, cont: "c1",
			script:    []reply{listFails(expired)},
			wantState: StateEmpty, wantPaged: true, wantRelist: true, wantCalls: []string{pageCall("c1")},
		}, {
			name: "Listing -> Listing: a transient error keeps the continue token", from: StateListing, paged: true, cont: "c1",
			script:    []reply{listFails(internal)},
			wantState: StateListing, wantCont: "c1", wantPaged: true, wantErr: internal, wantCalls: []string{pageCall("c1")},
		},
		// StateStreaming: one initial event per step.
		{
			name: "Streaming -> Streaming: ADDED is an InitApply", from: StateStreaming,
			events:    []WatchEvent[obj]{added("a", "5")},
			wantState: StateStreaming, wantProgressed: true, wantEvents: []string{"InitApply a@5"},
		}, {
			name: "Streaming -> Streaming: MODIFIED is an InitApply", from: StateStreaming,
			events:    []WatchEvent[obj]{modified("a", "6")},
			wantState: StateStreaming, wantProgressed: true, wantEvents: []string{"InitApply a@6"},
		}, {
			name: "Streaming -> Streaming: a bookmark that is not the end is ignored", from: StateStreaming,
			events:    []WatchEvent[obj]{bookmark("8")},
			wantState: StateStreaming, wantProgressed: true,
		}, {
			name: "Streaming -> Watching: the end bookmark, at its RV", from: StateStreaming,
			events:    []WatchEvent[obj]{initialEventsEnd("10")},
			wantState: StateWatching, wantRV: "10", wantProgressed: true, wantEvents: []string{"InitDone 10"},
		}, {
			name: "Streaming -> Empty: EOF before the end bookmark", from: StateStreaming, end: eof,
			wantState: StateEmpty, wantErr: errWatchEndedEarly,
		}, {
			name: "Streaming -> Empty: a read error", from: StateStreaming, end: breaks(errReset),
			wantState: StateEmpty, wantErr: errReset,
		}, {
			name: "Streaming -> Empty: ERROR 410, no error", from: StateStreaming,
			events:    []WatchEvent[obj]{errorEvent(expired)},
			wantState: StateEmpty, wantRelist: true,
		}, {
			name: "Streaming -> Empty: ERROR 500", from: StateStreaming,
			events:    []WatchEvent[obj]{errorEvent(internal)},
			wantState: StateEmpty, wantErr: internal,
		}, {
			name: "Streaming -> Empty: DELETED cannot come before the end", from: StateStreaming,
			events:    []WatchEvent[obj]{deleted("a", "6")},
			wantState: StateEmpty, wantErr: errAny,
		},
		// StateWatchPending: open a watch from the RV.
		{
			name: "WatchPending -> Watching: watches from the RV", from: StateWatchPending, rv: "10",
			script:    []reply{watchOK(block)},
			wantState: StateWatching, wantRV: "10", wantCalls: []string{watchCallFrom("10")},
		}, {
			name: "WatchPending -> Empty: 410 Expired, no error", from: StateWatchPending, rv: "10",
			script:    []reply{watchFails(expired)},
			wantState: StateEmpty, wantRelist: true, wantRV: "10", wantCalls: []string{watchCallFrom("10")},
		}, {
			name: "WatchPending -> Empty: 410 Gone, no error", from: StateWatchPending, rv: "10",
			script:    []reply{watchFails(gone)},
			wantState: StateEmpty, wantRelist: true, wantRV: "10", wantCalls: []string{watchCallFrom("10")},
		}, {
			name: "WatchPending -> WatchPending: a transient error", from: StateWatchPending, rv: "10",
			script:    []reply{watchFails(internal)},
			wantState: StateWatchPending, wantRV: "10", wantErr: internal, wantCalls: []string{watchCallFrom("10")},
		},
		// StateWatching: one live event per step.
		{
			name: "Watching -> Watching: ADDED is an Apply and moves the RV", from: StateWatching, rv: "10",
			events:    []WatchEvent[obj]{added("a", "11")},
			wantState: StateWatching, wantRV: "11", wantProgressed: true, wantEvents: []string{"Apply a@11"},
		}, {
			name: "Watching -> Watching: MODIFIED is an Apply and moves the RV", from: StateWatching, rv: "10",
			events:    []WatchEvent[obj]{modified("a", "12")},
			wantState: StateWatching, wantRV: "12", wantProgressed: true, wantEvents: []string{"Apply a@12"},
		}, {
			name: "Watching -> Watching: DELETED is a Delete and moves the RV", from: StateWatching, rv: "10",
			events:    []WatchEvent[obj]{deleted("a", "13")},
			wantState: StateWatching, wantRV: "13", wantProgressed: true, wantEvents: []string{"Delete a@13"},
		}, {
			name: "Watching -> Watching: BOOKMARK is a Bookmark and moves the RV", from: StateWatching, rv: "10",
			events:    []WatchEvent[obj]{bookmark("14")},
			wantState: StateWatching, wantRV: "14", wantProgressed: true, wantEvents: []string{"Bookmark 14"},
		}, {
			name: "Watching -> WatchPending: EOF, no error, RV kept", from: StateWatching, rv: "10", end: eof,
			wantState: StateWatchPending, wantRV: "10",
		}, {
			name: "Watching -> WatchPending: a read error, RV kept", from: StateWatching, rv: "10", end: breaks(errReset),
			wantState: StateWatchPending, wantRV: "10", wantErr: errReset,
		}, {
			name: "Watching -> Empty: ERROR 410, no error", from: StateWatching, rv: "10",
			events:    []WatchEvent[obj]{errorEvent(expired)},
			wantState: StateEmpty, wantRelist: true, wantRV: "10",
		}, {
			name: "Watching -> WatchPending: ERROR 500, RV kept", from: StateWatching, rv: "10",
			events:    []WatchEvent[obj]{errorEvent(internal)},
			wantState: StateWatchPending, wantRV: "10", wantErr: internal,
		}, {
			name: "Watching -> Watching: an unknown event type is an error; the watch stays open", from: StateWatching, rv: "10",
			events:    []WatchEvent[obj]{{Type: WatchEventType(99), ResourceVersion: "15"}},
			wantState: StateWatching, wantRV: "10", wantErr: errAny,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			c := newScriptedClient(t, cancel, tc.script...)
			var events, relists []string
			opts := Options{List: ListStreaming, OnRelist: func(err error) { relists = append(relists, describe(err)) }}
			if tc.paged {
				opts.List = ListPaged
			}
			m := &machine[obj]{
				w: New[obj](c, opts),
				emit: func(_ context.Context, ev Event[obj]) error {
					events = append(events, show(ev))
					return nil
				},
				state: tc.from, rv: tc.rv, cont: tc.cont, streaming: !tc.paged,
			}
			var before *scriptedStream
			if tc.from == StateStreaming || tc.from == StateWatching {
				before = c.newStream(ctx, tc.events, tc.end)
				m.stream = before
			}

			progressed, err := m.step(ctx)
			defer m.closeStream()

			if m.state != tc.wantState {
				t.Errorf("state = %v, want %v", m.state, tc.wantState)
			}
			if m.rv != tc.wantRV || m.cont != tc.wantCont {
				t.Errorf("rv, cont = %q, %q; want %q, %q", m.rv, m.cont, tc.wantRV, tc.wantCont)
			}
			if m.streaming != !tc.wantPaged {
				t.Errorf("streaming = %v, want %v", m.streaming, !tc.wantPaged)
			}
			if progressed != tc.wantProgressed {
				t.Errorf("progressed = %v, want %v", progressed, tc.wantProgressed)
			}
			switch {
			case tc.wantErr == errAny && err == nil, tc.wantErr != errAny && !errors.Is(err, tc.wantErr):
				t.Errorf("err = %v, want %v", err, tc.wantErr)
			}
			// A watch is open exactly in Streaming and Watching; leaving them closes it.
			watching := tc.wantState == StateStreaming || tc.wantState == StateWatching
			if open := m.stream != nil; open != watching {
				t.Errorf("open watch = %v in %v", open, m.state)
			}
			if before != nil && !watching && !before.isClosed() {
				t.Errorf("the watch was not closed on leaving %v", tc.from)
			}
			if before != nil && watching && m.stream != Stream[obj](before) {
				t.Errorf("the watch was replaced while staying in %v", m.state)
			}
			if c.ranOut() || c.unused() != 0 {
				t.Errorf("script: ran out %v, %d steps unused", c.ranOut(), c.unused())
			}
			if (len(relists) == 1) != tc.wantRelist || len(relists) > 1 {
				t.Errorf("OnRelist told of %v, want a relist: %v", relists, tc.wantRelist)
			}
			diff(t, "events", events, tc.wantEvents)
			diff(t, "calls", c.recorded(), tc.wantCalls)
		})
	}
}
