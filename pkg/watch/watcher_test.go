package watch

import (
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// TestRun drives Run through each protocol path with a scripted server. Every
// script ends with the call the watcher must make next: it runs past the
// script, the client records it and cancels, and Run returns nil.
func TestRun(t *testing.T) {
	tests := []struct {
		name        string
		opts        Options
		script      []reply
		wantCalls   []string
		wantEvents  []string
		wantRetries []string
		wantRelists []string
	}{{
		name: "streaming list: initial events, a bookmark that is not the end (ignored), the end bookmark, live events; EOF resumes from the last bookmark",
		script: []reply{
			watchOK(eof, added("a", "5"), added("b", "7"), bookmark("8"), initialEventsEnd("10"),
				added("c", "11"), modified("a", "12"), deleted("b", "13"), bookmark("14")),
		},
		wantCalls: []string{streamingListCall(), watchCallFrom("14")},
		wantEvents: []string{"Init", "InitApply a@5", "InitApply b@7", "InitDone 10",
			"Apply c@11", "Apply a@12", "Delete b@13", "Bookmark 14"},
	}, {
		name:        "streaming list: EOF right after the end bookmark resumes from the bookmark's RV, without Init",
		script:      []reply{watchOK(eof, initialEventsEnd("10")), watchOK(eof)},
		wantCalls:   []string{streamingListCall(), watchCallFrom("10"), watchCallFrom("10")},
		wantEvents:  []string{"Init", "InitDone 10"},
		wantRetries: []string{"watch closed at once without events after 800ms"},
	}, {
		name: "paged list: three pages, continue tokens passed on, InitDone at the last page's RV, then a watch from it",
		opts: Options{List: ListPaged},
		script: []reply{
			listOK("8", "c1", "a", "b"), listOK("9", "c2", "c"), listOK("10", "", "d"),
			watchOK(eof, added("e", "11")),
		},
		wantCalls:  []string{pageCall(""), pageCall("c1"), pageCall("c2"), watchCallFrom("10"), watchCallFrom("11")},
		wantEvents: []string{"Init", "InitApply a", "InitApply b", "InitApply c", "InitApply d", "InitDone 10", "Apply e@11"},
	}, {
		name:   "paged list: PageSize sets the limit",
		opts:   Options{List: ListPaged, PageSize: 2},
		script: []reply{listOK("8", "c1", "a", "b")},
		wantCalls: []string{
			call{Kind: listCall, List: ListRequest{Limit: 2}}.String(),
			call{Kind: listCall, List: ListRequest{Limit: 2, Continue: "c1"}}.String(),
		},
		wantEvents: []string{"Init", "InitApply a", "InitApply b"},
	}, {
		name:   "whole list: one LIST without a limit, then a watch from its RV; a relist after 410 lists whole again",
		opts:   Options{List: ListWhole, PageSize: 2},
		script: []reply{listOK("10", "", "a", "b", "c"), watchOK(eof, added("d", "11")), watchFails(expired), listOK("20", "", "a")},
		wantCalls: []string{call{Kind: listCall}.String(), watchCallFrom("10"), watchCallFrom("11"),
			call{Kind: listCall}.String(), watchCallFrom("20")},
		wantEvents: []string{"Init", "InitApply a", "InitApply b", "InitApply c", "InitDone 10", "Apply d@11",
			"Init", "InitApply a", "InitDone 20"},
		wantRelists: []string{"Expired(410)"},
	}, {
		name:        "paged list: an expired continue token (410) starts over at once with Init, in one unpaged LIST",
		opts:        Options{List: ListPaged},
		script:      []reply{listOK("8", "c1", "a"), listFails(expired), listOK("20", "", "a", "b"), watchOK(eof, added("c", "21"))},
		wantCalls:   []string{pageCall(""), pageCall("c1"), call{Kind: listCall}.String(), watchCallFrom("20"), watchCallFrom("21")},
		wantEvents:  []string{"Init", "InitApply a", "Init", "InitApply a", "InitApply b", "InitDone 20", "Apply c@21"},
		wantRelists: []string{"Expired(410)"},
	}, {
		name:        "paged list: a transient error retries the same page, without Init",
		opts:        Options{List: ListPaged},
		script:      []reply{listOK("8", "c1", "a"), listFails(internal), listOK("9", "", "b")},
		wantCalls:   []string{pageCall(""), pageCall("c1"), pageCall("c1"), watchCallFrom("9")},
		wantEvents:  []string{"Init", "InitApply a", "InitApply b", "InitDone 9"},
		wantRetries: []string{"InternalError(500) after 800ms"},
	}, {
		name:       "watch EOF resumes at once from the last object's RV, without Init",
		opts:       Options{List: ListPaged},
		script:     []reply{listOK("10", ""), watchOK(eof, added("a", "11"), modified("a", "12"))},
		wantCalls:  []string{pageCall(""), watchCallFrom("10"), watchCallFrom("12")},
		wantEvents: []string{"Init", "InitDone 10", "Apply a@11", "Apply a@12"},
	}, {
		name:        "watch EOF resumes from the last bookmark's RV",
		opts:        Options{List: ListPaged},
		script:      []reply{listOK("10", ""), watchOK(eof, added("a", "11"), bookmark("15")), watchOK(eof)},
		wantCalls:   []string{pageCall(""), watchCallFrom("10"), watchCallFrom("15"), watchCallFrom("15")},
		wantEvents:  []string{"Init", "InitDone 10", "Apply a@11", "Bookmark 15"},
		wantRetries: []string{"watch closed at once without events after 800ms"},
	}, {
		name:        "watch EOF at once without events backs off growing, then resumes from the list's RV",
		opts:        Options{List: ListPaged},
		script:      []reply{listOK("10", ""), watchOK(eof), watchOK(eof)},
		wantCalls:   []string{pageCall(""), watchCallFrom("10"), watchCallFrom("10"), watchCallFrom("10")},
		wantEvents:  []string{"Init", "InitDone 10"},
		wantRetries: []string{"watch closed at once without events after 800ms", "watch closed at once without events after 1.6s"},
	}, {
		name:        "watch read error backs off, then resumes from the last RV",
		opts:        Options{List: ListPaged},
		script:      []reply{listOK("10", ""), watchOK(breaks(errReset), added("a", "11"))},
		wantCalls:   []string{pageCall(""), watchCallFrom("10"), watchCallFrom("11")},
		wantEvents:  []string{"Init", "InitDone 10", "Apply a@11"},
		wantRetries: []string{"connection reset by peer after 800ms"},
	}, {
		name:        "ERROR event (500) while watching backs off, then resumes from the last RV",
		opts:        Options{List: ListPaged},
		script:      []reply{listOK("10", ""), watchOK(block, added("a", "11"), errorEvent(internal))},
		wantCalls:   []string{pageCall(""), watchCallFrom("10"), watchCallFrom("11")},
		wantEvents:  []string{"Init", "InitDone 10", "Apply a@11"},
		wantRetries: []string{"InternalError(500) after 800ms"},
	}, {
		name:        "ERROR event 410 while watching: Init and a new streaming list, at once",
		script:      []reply{watchOK(block, initialEventsEnd("10"), added("a", "11"), errorEvent(expired))},
		wantCalls:   []string{streamingListCall(), streamingListCall()},
		wantEvents:  []string{"Init", "InitDone 10", "Apply a@11", "Init"},
		wantRelists: []string{"Expired(410)"},
	}, {
		name:        "ERROR event 410 while watching, paged: Init and a list from scratch, at once",
		opts:        Options{List: ListPaged},
		script:      []reply{listOK("10", "", "a"), watchOK(block, added("b", "11"), errorEvent(expired))},
		wantCalls:   []string{pageCall(""), watchCallFrom("10"), pageCall("")},
		wantEvents:  []string{"Init", "InitApply a", "InitDone 10", "Apply b@11", "Init"},
		wantRelists: []string{"Expired(410)"},
	}, {
		name:        "410 opening the watch, paged: Init and a list from scratch",
		opts:        Options{List: ListPaged},
		script:      []reply{listOK("10", ""), watchFails(expired)},
		wantCalls:   []string{pageCall(""), watchCallFrom("10"), pageCall("")},
		wantEvents:  []string{"Init", "InitDone 10", "Init"},
		wantRelists: []string{"Expired(410)"},
	}, {
		name:        "410 Gone opening the watch: Init and a new streaming list",
		script:      []reply{watchOK(eof, initialEventsEnd("10")), watchFails(gone)},
		wantCalls:   []string{streamingListCall(), watchCallFrom("10"), streamingListCall()},
		wantEvents:  []string{"Init", "InitDone 10", "Init"},
		wantRelists: []string{"Gone(410)"},
	}, {
		name:        "410 wrapped by the client is still a 410",
		opts:        Options{List: ListPaged},
		script:      []reply{listOK("10", ""), watchFails(fmt.Errorf("watching pods: %w", expired))},
		wantCalls:   []string{pageCall(""), watchCallFrom("10"), pageCall("")},
		wantEvents:  []string{"Init", "InitDone 10", "Init"},
		wantRelists: []string{"Expired(410)"},
	}, {
		name:        "streaming list ends (EOF) before the end bookmark: back off, Init, start over",
		script:      []reply{watchOK(eof, added("a", "5"), bookmark("6"))},
		wantCalls:   []string{streamingListCall(), streamingListCall()},
		wantEvents:  []string{"Init", "InitApply a@5", "Init"},
		wantRetries: []string{errWatchEndedEarly.Error() + " after 800ms"},
	}, {
		name:        "streaming list read error: back off, Init, start over",
		script:      []reply{watchOK(breaks(errReset), added("a", "5"))},
		wantCalls:   []string{streamingListCall(), streamingListCall()},
		wantEvents:  []string{"Init", "InitApply a@5", "Init"},
		wantRetries: []string{"connection reset by peer after 800ms"},
	}, {
		name:        "streaming list ERROR event 410: Init and start over at once",
		script:      []reply{watchOK(block, added("a", "5"), errorEvent(expired))},
		wantCalls:   []string{streamingListCall(), streamingListCall()},
		wantEvents:  []string{"Init", "InitApply a@5", "Init"},
		wantRelists: []string{"Expired(410)"},
	}, {
		name:        "streaming list ERROR event 500: back off, Init, start over",
		script:      []reply{watchOK(block, added("a", "5"), errorEvent(internal))},
		wantCalls:   []string{streamingListCall(), streamingListCall()},
		wantEvents:  []string{"Init", "InitApply a@5", "Init"},
		wantRetries: []string{"InternalError(500) after 800ms"},
	}, {
		name:        "streaming list DELETED before the end bookmark: back off, Init, start over",
		script:      []reply{watchOK(block, added("a", "5"), deleted("a", "6"))},
		wantCalls:   []string{streamingListCall(), streamingListCall()},
		wantEvents:  []string{"Init", "InitApply a@5", "Init"},
		wantRetries: []string{fmt.Sprintf("unexpected %v event during a streaming list after 800ms", WatchDeleted)},
	}, {
		name:        "transient error opening a streaming list: back off, Init again, stream again",
		script:      []reply{watchFails(internal)},
		wantCalls:   []string{streamingListCall(), streamingListCall()},
		wantEvents:  []string{"Init", "Init"},
		wantRetries: []string{"InternalError(500) after 800ms"},
	}, {
		name:        "transient error opening a watch: back off, same RV",
		opts:        Options{List: ListPaged},
		script:      []reply{listOK("10", ""), watchFails(unavailable)},
		wantCalls:   []string{pageCall(""), watchCallFrom("10"), watchCallFrom("10")},
		wantEvents:  []string{"Init", "InitDone 10"},
		wantRetries: []string{"ServiceUnavailable(503) after 800ms"},
	}, {
		name:        "429 on a List waits for Retry-After",
		opts:        Options{List: ListPaged},
		script:      []reply{listFails(slowDown)},
		wantCalls:   []string{pageCall(""), pageCall("")},
		wantEvents:  []string{"Init"},
		wantRetries: []string{"TooManyRequests(429) after 7s"},
	}, {
		name:        "429 opening a watch waits for Retry-After",
		opts:        Options{List: ListPaged},
		script:      []reply{listOK("10", ""), watchFails(slowDown)},
		wantCalls:   []string{pageCall(""), watchCallFrom("10"), watchCallFrom("10")},
		wantEvents:  []string{"Init", "InitDone 10"},
		wantRetries: []string{"TooManyRequests(429) after 7s"},
	}, {
		name:        "429 opening a streaming list waits for Retry-After, then streams again",
		script:      []reply{watchFails(slowDown)},
		wantCalls:   []string{streamingListCall(), streamingListCall()},
		wantEvents:  []string{"Init", "Init"},
		wantRetries: []string{"TooManyRequests(429) after 7s"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runScript(t, tc.opts, nil, tc.script...)
			if r.err != nil {
				t.Errorf("Run = %v, want nil", r.err)
			}
			if !r.client.ranOut() || r.client.unused() != 0 {
				t.Errorf("Run stopped with %d script steps unused", r.client.unused())
			}
			diff(t, "calls", r.client.recorded(), tc.wantCalls)
			diff(t, "events", r.events, tc.wantEvents)
			diff(t, "retries", r.retries, tc.wantRetries)
			diff(t, "relists", r.relists, tc.wantRelists)
		})
	}
}

// TestStreamingListRefused: a server that refuses sendInitialEvents gets a
// paged LIST instead, in the same Init, and never another streaming list.
func TestStreamingListRefused(t *testing.T) {
	tests := []struct {
		name string
		err  error
	}{
		{"BadRequest", badRequest},
		{"Invalid", invalid},
		{"Invalid wrapped by the client", fmt.Errorf("watching pods: %w", invalid)},
		{"MethodNotSupported", notSupported},
		{"NotAcceptable", notAcceptable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runScript(t, Options{}, nil,
				watchFails(tc.err),
				listOK("10", "", "a"),
				watchOK(block, added("b", "11"), errorEvent(expired)),
				listOK("20", "", "a", "b"),
				watchFails(expired),
			)
			if r.err != nil {
				t.Errorf("Run = %v, want nil", r.err)
			}
			diff(t, "calls", r.client.recorded(), []string{
				streamingListCall(), pageCall(""), watchCallFrom("10"), pageCall(""), watchCallFrom("20"), pageCall(""),
			})
			diff(t, "events", r.events, []string{
				"Init", "InitApply a", "InitDone 10", "Apply b@11",
				"Init", "InitApply a", "InitApply b", "InitDone 20",
				"Init",
			})
			diff(t, "retries", r.retries, nil)
			diff(t, "relists", r.relists, []string{"Expired(410)", "Expired(410)"})
		})
	}

	t.Run("a List that fails with BadRequest too is terminal", func(t *testing.T) {
		r := runScript(t, Options{}, nil, watchFails(badRequest), listFails(badRequest))
		if !IsTerminal(r.err) || !apierrors.IsBadRequest(r.err) {
			t.Errorf("Run = %v, want a terminal BadRequest", r.err)
		}
		diff(t, "calls", r.client.recorded(), []string{streamingListCall(), pageCall("")})
		diff(t, "retries", r.retries, nil)
	})
}

// TestWatchEndingAtOnce: a watch that ends at once, without a single event,
// again and again (a proxy that closes every connection, an aggregated API
// that cannot watch) must be backed off, not reopened in a tight loop.
// client-go's reflector treats a watch shorter than a second with no events
// as an error for this reason.
func TestWatchEndingAtOnce(t *testing.T) {
	script := []reply{listOK("10", "")}
	for range 5 {
		script = append(script, watchOK(eof))
	}
	r := runScript(t, Options{List: ListPaged}, nil, script...)
	if len(r.retries) == 0 {
		t.Errorf("%d watches ended at once without events, and none was backed off", len(script)-1)
	}
}

func TestOnWatchRestart(t *testing.T) {
	tests := []struct {
		name   string
		opts   Options
		script []reply
		want   int
	}{{
		name: "whole list: the first watch after each list is no restart; a watch resumed after EOF is one; a 410 relists instead",
		opts: Options{List: ListWhole},
		script: []reply{listOK("10", "", "a"), watchOK(eof, added("d", "11")), watchOK(eof, added("e", "12")),
			watchFails(expired), listOK("20", "", "a"), watchOK(eof, added("f", "21"))},
		want: 1,
	}, {
		name:   "streaming list: the list is the first watch, so the watch after its EOF is a restart",
		script: []reply{watchOK(eof, initialEventsEnd("10"), added("c", "11")), watchOK(eof, added("d", "12"))},
		want:   1,
	}, {
		name:   "a watch that fails to open is no restart until one opens",
		opts:   Options{List: ListWhole},
		script: []reply{listOK("10", "", "a"), watchOK(eof, added("d", "11")), watchFails(internal), watchOK(eof, added("e", "12"))},
		want:   1,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			restarts := 0
			tc.opts.OnWatchRestart = func() { restarts++ }
			runScript(t, tc.opts, nil, tc.script...)
			if restarts != tc.want {
				t.Errorf("OnWatchRestart told %d times, want %d", restarts, tc.want)
			}
		})
	}
}
