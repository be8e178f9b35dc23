//go:build linux

package main

import (
	"fmt"
	"strings"
	"time"
)

// linearLimit is the largest step of the per-object slope from one segment
// of sizes to the next that still counts as linear growth (issue 11:
// no step beyond +10% per object from 20,000 to 100,000).
const linearLimit = 1.10

// scaleMetric is one figure the scale part reads at each size.
type scaleMetric struct {
	key, name  string
	unit       string  // of the value at a size
	format     string  // of the value at a size
	slopeUnit  string  // of the per-object slope
	slopeScale float64 // slope in slopeUnit = (value difference) * slopeScale / objects
	value      func(syncSample) float64
}

func scaleMetrics() []scaleMetric {
	return []scaleMetric{
		{key: "time", name: "sync time", unit: "s", format: "%.2f", slopeUnit: "µs", slopeScale: 1e6,
			value: func(s syncSample) float64 { return s.elapsed.Seconds() }},
		{key: "cpu", name: "CPU to sync (whole process)", unit: "s", format: "%.2f", slopeUnit: "µs", slopeScale: 1e6,
			value: func(s syncSample) float64 { return s.cpu.Seconds() }},
		{key: "heap", name: "heap after GC", unit: "MiB", format: "%.1f", slopeUnit: "B", slopeScale: 1 << 20,
			value: func(s syncSample) float64 { return mib(s.heap) }},
		{key: "rss", name: "RSS held once synced", unit: "MiB", format: "%.1f", slopeUnit: "B", slopeScale: 1 << 20,
			value: func(s syncSample) float64 { return mib(s.rssHeld) }},
		{key: "peak", name: "peak RSS while syncing", unit: "MiB", format: "%.1f", slopeUnit: "B", slopeScale: 1 << 20,
			value: func(s syncSample) float64 { return mib(s.rssPeak) }},
	}
}

// at is the median of m over kind's samples at the i-th size.
func (r scaleResult) at(kind cacheKind, i int, m scaleMetric) float64 {
	return medianOf(r.samples[kind][i], m.value)
}

// slope is m's cost per object between the (i-1)-th and the i-th size, in
// m.slopeUnit.
func (r scaleResult) slope(kind cacheKind, i int, m scaleMetric) float64 {
	d := r.at(kind, i, m) - r.at(kind, i-1, m)
	return d * m.slopeScale / float64(r.sizes[i]-r.sizes[i-1])
}

func (r scaleResult) sections(cfg config) []section {
	s := section{
		title: fmt.Sprintf("Scale: in-process caches at %s ConfigMaps", sizeList(r.sizes)),
		about: fmt.Sprintf("One namespace (%s) grown step by step; at each size each cache syncs it %d times, in turns, in the benchmark's "+
			"own process, as in the in-process section (kubectl-reflect's store: pkg/watch into pkg/store, pruned and packed; "+
			"client-go's typed informer, protobuf). Heap is HeapInuse after GC with the cache alive, less before it; "+
			"RSS is the process's resident set with freed memory returned to the OS (debug.FreeOSMemory), once synced, less before; "+
			"peak RSS is VmHWM, reset before the sync (/proc/self/clear_refs), less the resident set then. "+
			"A slope is a figure's growth per object from one size to the next; growth is linear when the slope of a step "+
			"is at most %.2fx the slope of the step before (the linearity rows, and the table below for both caches).",
			scaleNamespace, cfg.repeat, linearLimit),
	}
	typed := string(cacheTyped)
	for i, n := range r.sizes {
		for _, m := range scaleMetrics() {
			s.rows = append(s.rows, row{key: "scale." + m.key, metric: fmt.Sprintf("%s, %s ConfigMaps", m.name, count(n)),
				ours: r.at(cacheStore, i, m), baselineName: typed, baseline: r.at(cacheTyped, i, m), unit: m.unit, format: m.format})
		}
	}
	for i := 2; i < len(r.sizes); i++ {
		for _, m := range scaleMetrics() {
			s.rows = append(s.rows, row{key: "scale.linear." + m.key,
				metric:       fmt.Sprintf("%s per object, %s→%s", m.name, count(r.sizes[i-1]), count(r.sizes[i])),
				ours:         r.slope(cacheStore, i, m),
				baselineName: fmt.Sprintf("kubectl-reflect's, %s→%s", count(r.sizes[i-2]), count(r.sizes[i-1])),
				baseline:     r.slope(cacheStore, i-1, m), unit: m.slopeUnit, format: "%.1f", target: linearLimit})
		}
	}
	s.extra = r.slopeTable()
	for _, kind := range scaleKinds() {
		for i, n := range r.sizes {
			s.notes = append(s.notes, fmt.Sprintf("%s, %s ConfigMaps (created in %s): %s", kind, count(n), r.grow[i].Round(time.Millisecond),
				joinSep(r.samples[kind][i], "; ", func(x syncSample) string {
					return fmt.Sprintf("%.2f s (%.2f s CPU), heap %.0f B/object, RSS %.1f MiB held, %.1f MiB peak",
						x.elapsed.Seconds(), x.cpu.Seconds(), x.perObject(), mib(x.rssHeld), mib(x.rssPeak))
				})))
		}
	}
	return []section{s}
}

// slopeTable is the per-object slopes of both caches, each step against
// the one before.
func (r scaleResult) slopeTable() string {
	var b strings.Builder
	b.WriteString("| cache | figure | ")
	for i := 1; i < len(r.sizes); i++ {
		fmt.Fprintf(&b, "per object %s→%s | ", count(r.sizes[i-1]), count(r.sizes[i]))
	}
	b.WriteString("linear (each step ≤ " + fmt.Sprintf("%.2fx", linearLimit) + " the one before) |\n|---|---|")
	b.WriteString(strings.Repeat("---|", len(r.sizes)))
	b.WriteString("\n")
	for _, kind := range scaleKinds() {
		for _, m := range scaleMetrics() {
			fmt.Fprintf(&b, "| %s | %s | ", kind, m.name)
			var steps []string
			for i := 1; i < len(r.sizes); i++ {
				fmt.Fprintf(&b, "%.1f %s | ", r.slope(kind, i, m), m.slopeUnit)
				if i >= 2 {
					steps = append(steps, linearity(r.slope(kind, i-1, m), r.slope(kind, i, m)))
				}
			}
			fmt.Fprintf(&b, "%s |\n", strings.Join(steps, "; "))
		}
	}
	return b.String()
}

// linearity says whether the step from slope prev to slope next is linear.
func linearity(prev, next float64) string {
	if prev <= 0 {
		return fmt.Sprintf("n/a (the step before is %.1f)", prev)
	}
	step := next / prev
	if step > linearLimit {
		return fmt.Sprintf("**non-linear** (%.2fx)", step)
	}
	return fmt.Sprintf("yes (%.2fx)", step)
}

func sizeList(sizes []int) string {
	return joinf(sizes, count)
}
