//go:build linux

package main

import (
	"fmt"
	"slices"
)

// minRatioRounds is the fewest rounds (-repeat) of a published run: each
// ratio row's two sides run that many times, taking turns (A B, then
// B A, ...), and its ratio is the median of the rounds' ratios.
const minRatioRounds = 5

// firstInRound says whether, in round, the commands run in their listed
// order (even rounds) or in reverse (odd rounds): who goes first takes
// turns, so that a side that gains from the other's warm caches, or loses
// to the other's garbage, does so in half the rounds.
func firstInRound[T any](round int, cmds []T) []T {
	if round%2 == 0 {
		return cmds
	}
	r := slices.Clone(cmds)
	slices.Reverse(r)
	return r
}

// pair is one round of a ratio row: ours and the baseline, measured in
// the same round, one after the other.
type pair struct{ ours, baseline float64 }

// pairedRatio is how every ratio of the report is aggregated: the median
// of the rounds' own ratios ours/baseline, and their smallest and largest.
// A median of each side, then their quotient, would pair one round's ours
// with another's baseline: on a loaded machine that can say "met" where
// most rounds missed.
type pairedRatio struct {
	median, min, max float64
	rounds           int // rounds with a baseline; 0: no ratio
}

// aggregate is the paired ratio of pairs; a round whose baseline is not
// positive has no ratio and is left out.
func aggregate(pairs []pair) pairedRatio {
	var ratios []float64
	for _, p := range pairs {
		if p.baseline > 0 {
			ratios = append(ratios, p.ours/p.baseline)
		}
	}
	if len(ratios) == 0 {
		return pairedRatio{}
	}
	return pairedRatio{median: median(ratios), min: slices.Min(ratios), max: slices.Max(ratios), rounds: len(ratios)}
}

// crosses says whether the rounds' spread straddles target: some rounds
// met it and some did not, so the median's verdict is within noise.
func (p pairedRatio) crosses(target float64) bool {
	return p.rounds > 1 && p.min <= target && p.max > target
}

// spread is the rounds' smallest and largest ratio, as printed beside
// the median: "0.59-0.70x of 5 rounds".
func (p pairedRatio) spread() string {
	if p.rounds < 2 {
		return fmt.Sprintf("%d round", p.rounds)
	}
	return fmt.Sprintf("%.2f–%.2fx of %d rounds", p.min, p.max, p.rounds)
}

// pairsOf pairs round i of ours with round i of the baseline: both sides
// of a ratio row ran in the same rounds, taking turns. Extra rounds of
// either side (a side that failed to run) are left out.
func pairsOf[A, B any](ours []A, fa func(A) float64, base []B, fb func(B) float64) []pair {
	n := min(len(ours), len(base))
	ps := make([]pair, n)
	for i := range n {
		ps[i] = pair{ours: fa(ours[i]), baseline: fb(base[i])}
	}
	return ps
}

// samePairs is pairsOf for two sides measured with the same figure.
func samePairs[T any](ours, base []T, f func(T) float64) []pair { return pairsOf(ours, f, base, f) }

// valuePairs pairs two sides' figures, round by round.
func valuePairs(ours, base []float64) []pair {
	id := func(v float64) float64 { return v }
	return pairsOf(ours, id, base, id)
}
