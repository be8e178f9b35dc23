//go:build linux

package main

import (
	"fmt"
	"slices"
)

// Targets of the contexts rows (issue 30, Performance).
const (
	contextsGetTarget      = 1.2  // get of three contexts against the slowest one alone
	contextsLoopTarget     = 0.4  // get of three contexts against kubectl's loop over them
	contextsDaemonTarget   = 0.05 // the same through a warm daemon
	contextsWatchCPUTarget = 1.05 // CPU per event of a watch of three against one
)

func (r contextsResult) rows() []row {
	getSecs := func(s getSample) float64 { return s.elapsed.Seconds() }
	secs := func(cmd contextsCommand) float64 { return medianOf(r.get[cmd], getSecs) }
	cpu := func(cmd contextsCommand) float64 {
		return medianOf(r.get[cmd], func(s getSample) float64 { return s.cpu.Seconds() })
	}
	slowest, singlesCPU := 0.0, 0.0
	for _, name := range contextNames {
		slowest = max(slowest, secs(ctxSingle(name)))
		singlesCPU += cpu(ctxSingle(name))
	}
	ms := func(v float64) float64 { return v }
	// Round by round: the three at once against the slowest alone, and
	// their CPU against the singles' summed, in the same round.
	vsSlowest, vsSum := []pair{}, []pair{}
	for i, s := range r.get[ctxReflectGet] {
		p, q := pair{ours: s.elapsed.Seconds()}, pair{ours: s.cpu.Seconds()}
		for _, name := range contextNames {
			if single := r.get[ctxSingle(name)]; i < len(single) {
				p.baseline = max(p.baseline, single[i].elapsed.Seconds())
				q.baseline += single[i].cpu.Seconds()
			}
		}
		vsSlowest, vsSum = append(vsSlowest, p), append(vsSum, q)
	}
	watches := 0.0
	if len(r.watches) > 0 {
		watches = float64(slices.Max(r.watches))
	}
	loop := "`kubectl get cm -A` per context, in a shell loop"
	return []row{
		{key: "contexts.get", baselineName: "the slowest context alone", metric: "contexts: `get cm -A --context east,west,north` vs the slowest of `get cm -A --context X` alone: wall time to exit", ours: secs(ctxReflectGet), baseline: slowest, pairs: vsSlowest, unit: "s", format: "%.2f", target: contextsGetTarget},
		{key: "contexts.get.cpu", baselineName: "the three contexts alone, summed", metric: "contexts: `get cm -A --context east,west,north` vs `get cm -A --context X` of each alone, summed: CPU of the process (reference: what reading three at once costs over reading each)", ours: cpu(ctxReflectGet), baseline: singlesCPU, pairs: vsSum, unit: "s", format: "%.2f"},
		{key: "contexts.get.loop", baselineName: loop, metric: "contexts: `get cm -A` of the three contexts vs kubectl's loop over them: wall time to exit", ours: secs(ctxReflectGet), baseline: secs(ctxKubectlLoop), pairs: samePairs(r.get[ctxReflectGet], r.get[ctxKubectlLoop], getSecs), unit: "s", format: "%.2f", target: contextsLoopTarget},
		{key: "contexts.serve.get", baselineName: loop, metric: "contexts: `get cm -A` of the three contexts through a warm `serve --context east,west,north` vs kubectl's loop at the API servers: wall time to exit", ours: secs(ctxDaemonGet), baseline: secs(ctxKubectlLoop), pairs: samePairs(r.get[ctxDaemonGet], r.get[ctxKubectlLoop], getSecs), unit: "s", format: "%.2f", target: contextsDaemonTarget},
		{key: "contexts.serve.merged", baselineName: loop, metric: "contexts: `kubectl get cm -A` of the daemon's merged view vs kubectl's loop at the API servers: wall time to exit (reference)", ours: secs(ctxDaemonMerged), baseline: secs(ctxKubectlLoop), pairs: samePairs(r.get[ctxDaemonMerged], r.get[ctxKubectlLoop], getSecs), unit: "s", format: "%.2f"},
		{key: "contexts.watches", limit: 1, metric: fmt.Sprintf("contexts: API server WATCHes of ConfigMaps per cluster with the daemon and %d watch clients of the three contexts (the most of the three clusters; 1 wanted)", r.clients), ours: watches, unit: "watches", format: "%.0f"},
		{key: "contexts.watch.cpu", baselineName: "a watch of one context", metric: "contexts: CPU per live event, `watch cm -o json --context east,west,north` (updates spread over the three) vs `--context east` alone (as many updates in east)", ours: medianOf(r.multi, ms), baseline: medianOf(r.single, ms), pairs: valuePairs(r.multi, r.single), unit: "ms", format: "%.3f", target: contextsWatchCPUTarget},
	}
}

// sections is the contexts part's table, its notes after it.
func (r contextsResult) sections(cfg config) []section {
	var notes []string
	for _, cmd := range slices.Sorted(func(yield func(contextsCommand) bool) {
		for c := range r.get {
			if !yield(c) {
				return
			}
		}
	}) {
		notes = append(notes, fmt.Sprintf("`%s` (s): %s", cmd, joinf(r.get[cmd], func(s getSample) string { return fmt.Sprintf("%.2f", s.elapsed.Seconds()) })))
	}
	f := func(v float64) string { return fmt.Sprintf("%.3f", v) }
	notes = append(notes, "CPU per event, three contexts (ms): "+joinf(r.multi, f), "CPU per event, one context (ms): "+joinf(r.single, f),
		fmt.Sprintf("API server WATCHes per cluster (east, west, north): %v", r.watches))
	return []section{{
		title: "Several clusters: `get`, `serve` and `watch` across three contexts",
		about: fmt.Sprintf("Three clusters on this machine (a kube-apiserver each, one etcd with a prefix each; the fleet of the "+
			"multi-cluster tests), %s ConfigMaps of %d bytes in a namespace of each, a context each in one kubeconfig. Gets are "+
			"new processes timed to their exit, after one warm-up run each, taking turns; the slowest-context baseline's figure is the "+
			"largest of the three contexts' medians, and its ratio the median over rounds of the round's own against its slowest context. The daemon is one `serve cm --context east,west,north`; %d watch clients "+
			"of the three contexts (`kubectl-reflect watch`, and `kubectl get -w` of its merged view) attach before the API "+
			"servers' WATCH counts are read. The watch rows: a `--watch-only -o json` watch, %s updates made after it printed "+
			"a sentinel update of each of its contexts, its CPU (/proc) from then to its last event.",
			count(r.perCluster), cfg.size, r.clients, count(contextsWatchEvents*cfg.events)),
		rows:  r.rows(),
		notes: notes,
	}}
}
