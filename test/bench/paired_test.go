//go:build linux

package main

import (
	"slices"
	"testing"
)

func TestAggregate(t *testing.T) {
	tests := []struct {
		name  string
		pairs []pair
		want  pairedRatio
	}{
		{"none", nil, pairedRatio{}},
		{"one round", []pair{{1, 4}}, pairedRatio{median: 0.25, min: 0.25, max: 0.25, rounds: 1}},
		// Issue 51's in-process sync: each side's median is 0.60x apart,
		// the rounds' own ratios say 0.62x.
		{"issue 51's sync rounds", []pair{{0.62, 1}, {0.59, 1}, {0.70, 1}}, pairedRatio{median: 0.62, min: 0.59, max: 0.70, rounds: 3}},
		{"even rounds: the middle two averaged", []pair{{1, 2}, {3, 4}, {1, 1}, {1, 4}}, pairedRatio{median: 0.625, min: 0.25, max: 1, rounds: 4}},
		{"a round without a baseline is left out", []pair{{1, 0}, {2, 4}, {3, 4}}, pairedRatio{median: 0.625, min: 0.5, max: 0.75, rounds: 2}},
		{"no round has a baseline", []pair{{1, 0}}, pairedRatio{}},
	}
	for _, tt := range tests {
		got := aggregate(tt.pairs)
		if got.rounds != tt.want.rounds || !near(got.median, tt.want.median) || !near(got.min, tt.want.min) || !near(got.max, tt.want.max) {
			t.Errorf("%s: aggregate(%v) = %+v, want %+v", tt.name, tt.pairs, got, tt.want)
		}
	}
}

// TestPairedRows: a ratio row is judged on the median of its rounds'
// ratios, not on the quotient of its sides' medians, prints its spread,
// and says "within noise" when the spread crosses the target.
func TestPairedRows(t *testing.T) {
	// The medians of each side (0.60 / 1.00) would meet 0.6; the rounds' own
	// ratios are 0.62, 0.59, 0.70: median 0.62, missed.
	sync := []pair{{0.62, 1.0}, {0.59, 1.0}, {0.60, 0.857}}
	tests := []struct {
		name              string
		r                 row
		ratio, status, sc string
	}{
		{"paired median misses where the medians' quotient met", row{ours: 0.6, baseline: 1, target: 0.6, pairs: sync},
			"0.62x (0.59–0.70x of 3 rounds)", "missed", "**missed**, within noise"},
		{"every round meets", row{ours: 1, baseline: 4, target: 0.5, pairs: []pair{{1, 4}, {1, 5}, {1, 3}}},
			"0.25x (0.20–0.33x of 3 rounds)", "met", "met"},
		{"met by the median, some rounds miss", row{ours: 1, baseline: 4, target: 0.3, pairs: []pair{{1, 4}, {1, 5}, {1, 2}}},
			"0.25x (0.20–0.50x of 3 rounds)", "met", "met, within noise"},
		{"every round misses", row{ours: 2, baseline: 1, target: 0.5, pairs: []pair{{2, 1}, {3, 1}, {1, 1}}},
			"2.00x (1.00–3.00x of 3 rounds)", "missed", "**missed**"},
		{"a spread that only touches the target meets it in every round", row{ours: 1, baseline: 2, target: 0.5, pairs: []pair{{1, 2}, {1, 4}}},
			"0.38x (0.25–0.50x of 2 rounds)", "met", "met"},
		{"a reference row has no verdict", row{ours: 1, baseline: 2, pairs: []pair{{1, 2}, {1, 1}}},
			"0.75x (0.50–1.00x of 2 rounds)", "", "-"},
		{"unpaired (a slope): the quotient, no spread", row{ours: 1, baseline: 2, target: 1.1},
			"0.50x", "met", "met"},
		{"no baseline", row{ours: 1, target: 0.5, pairs: []pair{{1, 0}}}, "n/a", "n/a", "n/a"},
	}
	for _, tt := range tests {
		if got := tt.r.ratioText(); got != tt.ratio {
			t.Errorf("%s: ratio %q, want %q", tt.name, got, tt.ratio)
		}
		if got := tt.r.status(); got != tt.status {
			t.Errorf("%s: status %q, want %q", tt.name, got, tt.status)
		}
		if got := tt.r.statusText(); got != tt.sc {
			t.Errorf("%s: status cell %q, want %q", tt.name, got, tt.sc)
		}
	}
}

func TestFirstInRound(t *testing.T) {
	cmds := []string{"a", "b", "c"}
	for round, want := range [][]string{{"a", "b", "c"}, {"c", "b", "a"}, {"a", "b", "c"}} {
		if got := firstInRound(round, cmds); !slices.Equal(got, want) {
			t.Errorf("round %d: %v, want %v", round, got, want)
		}
	}
	if !slices.Equal(cmds, []string{"a", "b", "c"}) {
		t.Errorf("firstInRound changed its argument: %v", cmds)
	}
}

// TestEveryRatioRowIsPaired: a row with a baseline carries its rounds,
// unless its figures are not rounds (slopes, sums over sizes).
func TestEveryRatioRowIsPaired(t *testing.T) {
	unpaired := map[string]bool{"scale": true} // slopes and per-size figures: one figure per size, not rounds
	for _, rep := range everyReport() {
		for _, s := range rep.sections(config{}) {
			for _, r := range s.rows {
				if r.baselineName == "" || r.pairs != nil || unpaired[firstWord(r.key)] {
					continue
				}
				t.Errorf("%s: row %q (key %q) has a baseline but no paired rounds", s.title, r.metric, r.key)
			}
		}
	}
}

func firstWord(key string) string {
	for i, c := range key {
		if c == '.' {
			return key[:i]
		}
	}
	return key
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
