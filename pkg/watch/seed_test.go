package watch

import (
	"context"
	"slices"
	"testing"
)

// TestSeed: a watcher given a seed starts from it (no list) and watches
// from its resourceVersion; a server that no longer holds it (410, at the
// opening or as the watch's first event) makes it relist as after any
// 410; no seed, or one without a resourceVersion, lists as usual; the
// seeder is asked once.
func TestSeed(t *testing.T) {
	seedAt := func(rv string, names ...string) Seed[obj] {
		s := Seed[obj]{ResourceVersion: rv}
		for _, n := range names {
			s.Items = append(s.Items, obj{Name: n, RV: rv})
		}
		return s
	}
	tests := []struct {
		name        string
		seed        Seed[obj]
		ok          bool
		script      []reply
		wantCalls   []string
		wantEvents  []string
		wantRelists []string
	}{{
		name:       "the seed is the first list; the watch resumes from its resourceVersion",
		seed:       seedAt("10", "a", "b"),
		ok:         true,
		script:     []reply{watchOK(eof, modified("a", "11"), deleted("b", "12"))},
		wantCalls:  []string{watchCallFrom("10"), watchCallFrom("12")},
		wantEvents: []string{"Init of 2", "InitApply a", "InitApply b", "InitDone 10", "Apply a@11", "Delete b@12"},
	}, {
		name: "a seed with changes: the state, its changes as live events, a bookmark where they end; the watch resumes there",
		seed: func() Seed[obj] {
			s := seedAt("10", "a", "b")
			s.Changes = []Event[obj]{{Type: Apply, Object: obj{"a", "12"}, ResourceVersion: "12"}, {Type: Delete, Object: obj{"b", "14"}, ResourceVersion: "14"}}
			s.Until = "20"
			return s
		}(),
		ok:         true,
		script:     []reply{watchOK(eof, added("c", "21"))},
		wantCalls:  []string{watchCallFrom("20"), watchCallFrom("21")},
		wantEvents: []string{"Init of 2", "InitApply a", "InitApply b", "InitDone 10", "Apply a@12", "Delete b@14", "Bookmark 20", "Apply c@21"},
	}, {
		name: "410 at the opening: a relist (the seeder is not asked again)",
		seed: seedAt("10", "a"),
		ok:   true,
		script: []reply{watchFails(expired), listOK("20", "", "b"), watchOK(eof, added("c", "21")),
			watchFails(expired), listOK("30", "", "c")},
		wantCalls: []string{watchCallFrom("10"), call{Kind: listCall}.String(), watchCallFrom("20"), watchCallFrom("21"),
			call{Kind: listCall}.String(), watchCallFrom("30")},
		wantEvents: []string{"Init of 1", "InitApply a", "InitDone 10", "Init", "InitApply b", "InitDone 20", "Apply c@21",
			"Init", "InitApply c", "InitDone 30"},
		wantRelists: []string{"Expired(410)", "Expired(410)"},
	}, {
		name:        "410 as the watch's first event (the API server's watch cache): a relist",
		seed:        seedAt("10", "a"),
		ok:          true,
		script:      []reply{watchOK(block, errorEvent(expired)), listOK("20", "", "b")},
		wantCalls:   []string{watchCallFrom("10"), call{Kind: listCall}.String(), watchCallFrom("20")},
		wantEvents:  []string{"Init of 1", "InitApply a", "InitDone 10", "Init", "InitApply b", "InitDone 20"},
		wantRelists: []string{"Expired(410)"},
	}, {
		name:       "no seed: a list",
		seed:       seedAt("10", "a"),
		script:     []reply{listOK("20", "", "b")},
		wantCalls:  []string{call{Kind: listCall}.String(), watchCallFrom("20")},
		wantEvents: []string{"Init", "InitApply b", "InitDone 20"},
	}, {
		name:       "a seed without a resourceVersion: a list",
		seed:       seedAt("", "a"),
		ok:         true,
		script:     []reply{listOK("20", "", "b")},
		wantCalls:  []string{call{Kind: listCall}.String(), watchCallFrom("20")},
		wantEvents: []string{"Init", "InitApply b", "InitDone 20"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			asked := 0
			seeder := func(context.Context) (Seed[obj], bool) { asked++; return tc.seed, tc.ok }
			r := runSeeded(t, Options{List: ListWhole}, seeder, nil, tc.script...)
			if got := r.client.recorded(); !slices.Equal(got, tc.wantCalls) {
				t.Errorf("calls:\n got %q\nwant %q", got, tc.wantCalls)
			}
			if !slices.Equal(r.events, tc.wantEvents) {
				t.Errorf("events:\n got %q\nwant %q", r.events, tc.wantEvents)
			}
			if !slices.Equal(r.relists, tc.wantRelists) {
				t.Errorf("relists: got %q, want %q", r.relists, tc.wantRelists)
			}
			if asked != 1 {
				t.Errorf("the seeder was asked %d times, want once", asked)
			}
		})
	}
}
