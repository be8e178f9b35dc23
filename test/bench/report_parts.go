//go:build linux

package main

import (
	"fmt"
	"os"
	"time"
)

// Targets of the get, memory and relist rows (issue 11): the largest ratio
// kubectl-reflect/baseline we aim for.
const (
	getTarget        = 0.15 // cold get cm -A against kubectl get cm -A
	getJSONRSSTarget = 0.3  // peak RSS of get -o json against kubectl's
	syncTarget       = 0.6  // in-process sync time against the typed informer
	syncCRDTarget    = 0.3  // in-process sync time of a CRD against the dynamic informer
	heapTarget       = 0.35 // heap per object against the typed informer
	relistPeakLimit  = 1.2  // peak heap during a relist against the steady heap
)

func (r getResult) sections(cfg config) []section {
	med := func(cmd getCommand, f func(getSample) float64) float64 { return medianOf(r.samples[cmd], f) }
	secs := func(s getSample) float64 { return s.elapsed.Seconds() }
	rss := func(s getSample) float64 { return mib(s.hwm) }
	all, json := string(kubectlGetAll), string(kubectlGetJSON)
	s := section{
		title: fmt.Sprintf("`get`: a cold process to its exit (%s ConfigMaps)", count(cfg.objects)),
		about: "Every run is a new process, timed from its start to its exit with all of its stdout read; " +
			"both tools share a warm discovery cache and omit metadata.managedFields from -o json; peak RSS is VmHWM read every 20 ms. " +
			"kubectl's headline rows run it unthrottled with `--chunk-size=0` (one LIST): kubectl 1.37 has no flag, kubeconfig field or " +
			"variable that lifts client-go's client-side rate limit (5 requests a second after a burst of 10; cli-runtime lifts it for discovery only), " +
			"which spaces its pages of 500 200 ms apart after the first ten; its throttled default is the row so labelled.",
		rows: []row{
			{key: "get.all", metric: "`get cm -A`: wall time", ours: med(reflectGetAll, secs), baselineName: all, baseline: med(kubectlGetAll, secs), pairs: pairsOf(r.samples[reflectGetAll], secs, r.samples[kubectlGetAll], secs), unit: "s", format: "%.2f", target: getTarget},
			{key: "get.all.throttled", metric: "`get cm -A`: wall time, against kubectl's throttled default (reference)", ours: med(reflectGetAll, secs), baselineName: string(kubectlGetAllThrottled) + " (pages of 500, client-side rate limit)", baseline: med(kubectlGetAllThrottled, secs), pairs: pairsOf(r.samples[reflectGetAll], secs, r.samples[kubectlGetAllThrottled], secs), unit: "s", format: "%.2f"},
			{key: "get.all.streaming", metric: "`get cm -A --list-mode=streaming`: wall time", ours: med(reflectGetAllStreaming, secs), baselineName: all, baseline: med(kubectlGetAll, secs), pairs: pairsOf(r.samples[reflectGetAllStreaming], secs, r.samples[kubectlGetAll], secs), unit: "s", format: "%.2f"},
			{key: "get.all.paged", metric: "`get cm -A --list-mode=paged`: wall time", ours: med(reflectGetAllPaged, secs), baselineName: all, baseline: med(kubectlGetAll, secs), pairs: pairsOf(r.samples[reflectGetAllPaged], secs, r.samples[kubectlGetAll], secs), unit: "s", format: "%.2f"},
			{key: "get.all.rss", metric: "`get cm -A`: peak RSS", ours: med(reflectGetAll, rss), baselineName: all, baseline: med(kubectlGetAll, rss), pairs: pairsOf(r.samples[reflectGetAll], rss, r.samples[kubectlGetAll], rss), unit: "MiB", format: "%.1f"},
			{key: "get.json", metric: "`get cm -n NS -o json`: wall time", ours: med(reflectGetJSON, secs), baselineName: json, baseline: med(kubectlGetJSON, secs), pairs: pairsOf(r.samples[reflectGetJSON], secs, r.samples[kubectlGetJSON], secs), unit: "s", format: "%.2f"},
			{key: "get.json.rss", metric: "`get cm -n NS -o json`: peak RSS", ours: med(reflectGetJSON, rss), baselineName: json, baseline: med(kubectlGetJSON, rss), pairs: pairsOf(r.samples[reflectGetJSON], rss, r.samples[kubectlGetJSON], rss), unit: "MiB", format: "%.1f", target: getJSONRSSTarget},
		},
	}
	for _, cmd := range getCommands() {
		samples := r.samples[cmd]
		if len(samples) == 0 {
			continue
		}
		s.notes = append(s.notes, fmt.Sprintf("`%s` (s): %s; %d lines, %.1f MiB printed; peak RSS (MiB): %s", cmd,
			joinf(samples, func(x getSample) string { return fmt.Sprintf("%.2f", x.elapsed.Seconds()) }), samples[0].lines, mib(samples[0].bytes),
			joinf(samples, func(x getSample) string { return fmt.Sprintf("%.1f", mib(x.hwm)) })))
	}
	ours, theirs := r.samples[reflectGetAll], r.samples[kubectlGetAll]
	if len(ours) > 0 && len(theirs) > 0 && ours[0].lines != theirs[0].lines {
		s.notes = append(s.notes, fmt.Sprintf("warning: `get cm -A` printed %d lines, kubectl %d", ours[0].lines, theirs[0].lines))
	}
	return []section{s}
}

func (r memoryResult) sections(cfg config) []section {
	syncSecs := func(s syncSample) float64 { return s.elapsed.Seconds() }
	syncCPU := func(s syncSample) float64 { return s.cpu.Seconds() }
	secs := func(kind cacheKind) float64 { return medianOf(r.samples[kind], syncSecs) }
	cpu := func(kind cacheKind) float64 { return medianOf(r.samples[kind], syncCPU) }
	perObject := func(kind cacheKind) float64 { return medianOf(r.samples[kind], syncSample.perObject) }
	ours, typed := cacheStore, string(cacheTyped)
	s := section{
		title: fmt.Sprintf("In-process caches: sync and heap (%s ConfigMaps, and as many Widgets)", count(cfg.objects)),
		about: "Each cache syncs the namespace in the benchmark's own process, one at a time, with its own client " +
			"from the same rest.Config (QPS 1000, burst 2000); time from building its client to synced; heap = HeapInuse after two GCs " +
			"with the cache synced and alive, less the same before it started, divided by the objects it holds. " +
			"The store is pkg/watch into pkg/store as the commands run them (one LIST decoded as it arrives, then a watch), " +
			"with managedFields and last-applied pruned and objects packed, over JSON; client-go's informers use its defaults " +
			"(a streaming list, WatchListClient; the typed client reads protobuf, the dynamic client JSON) but for the informer told to use JSON " +
			"and the two typed informers with the streaming list off (a LIST, then a WATCH, as with WatchListClient=false; each typed informer's " +
			"requests are counted, and a round fails if it filled its cache by another path than its row names). " +
			"The store is also filled by a streaming list (`--list-mode=streaming`), the list protocol of client-go's default, its requests counted likewise. " +
			"Widgets are a custom resource holding the ConfigMaps' data (test/bench/crd.go), which client-go caches only with its dynamic informer. " +
			"The floors are no cache: one LIST of the namespace, read to its end and discarded by client-go's REST client (gzip, as every client asks for it), " +
			"timed the same way: the server's encoding and compression, the transfer and the inflate that any cache of the namespace pays before it decodes anything. " +
			"The store and the JSON floor over HTTP/2 (KUBECTL_REFLECT_HTTP2) measure the transport we list over (HTTP/1.1) against client-go's default.",
		rows: []row{
			{key: "sync", metric: "sync time", ours: secs(ours), baselineName: typed, baseline: secs(cacheTyped), pairs: pairsOf(r.samples[ours], syncSecs, r.samples[cacheTyped], syncSecs), unit: "s", format: "%.2f", target: syncTarget},
			{key: "sync.stripped", metric: "sync time", ours: secs(ours), baselineName: string(cacheTypedStripped), baseline: secs(cacheTypedStripped), pairs: pairsOf(r.samples[ours], syncSecs, r.samples[cacheTypedStripped], syncSecs), unit: "s", format: "%.2f"},
			{key: "sync.json", metric: "sync time", ours: secs(ours), baselineName: string(cacheTypedJSON), baseline: secs(cacheTypedJSON), pairs: pairsOf(r.samples[ours], syncSecs, r.samples[cacheTypedJSON], syncSecs), unit: "s", format: "%.2f"},
			{key: "sync.list", metric: "sync time", ours: secs(ours), baselineName: string(cacheTypedList), baseline: secs(cacheTypedList), pairs: pairsOf(r.samples[ours], syncSecs, r.samples[cacheTypedList], syncSecs), unit: "s", format: "%.2f"},
			{key: "sync.json.list", metric: "sync time, the same protocol path (a JSON LIST, then a WATCH)", ours: secs(ours), baselineName: string(cacheTypedJSONList), baseline: secs(cacheTypedJSONList), pairs: pairsOf(r.samples[ours], syncSecs, r.samples[cacheTypedJSONList], syncSecs), unit: "s", format: "%.2f"},
			{key: "sync.streaming", metric: "sync time, both by a streaming list over JSON (ours with --list-mode=streaming)", ours: secs(cacheStoreStreaming), baselineName: string(cacheTypedJSON), baseline: secs(cacheTypedJSON), pairs: pairsOf(r.samples[cacheStoreStreaming], syncSecs, r.samples[cacheTypedJSON], syncSecs), unit: "s", format: "%.2f"},
			{key: "sync.dynamic", metric: "sync time", ours: secs(ours), baselineName: string(cacheDynamic), baseline: secs(cacheDynamic), pairs: pairsOf(r.samples[ours], syncSecs, r.samples[cacheDynamic], syncSecs), unit: "s", format: "%.2f"},
			{key: "sync.floor", metric: "sync time", ours: secs(ours), baselineName: string(floorJSON), baseline: secs(floorJSON), pairs: pairsOf(r.samples[ours], syncSecs, r.samples[floorJSON], syncSecs), unit: "s", format: "%.2f"},
			{key: "sync.floor.protobuf", metric: "sync time", ours: secs(ours), baselineName: string(floorProtobuf), baseline: secs(floorProtobuf), pairs: pairsOf(r.samples[ours], syncSecs, r.samples[floorProtobuf], syncSecs), unit: "s", format: "%.2f"},
			{key: "sync.http2", metric: "sync time, HTTP/1.1 (the default) against HTTP/2", ours: secs(ours), baselineName: string(cacheStoreHTTP2), baseline: secs(cacheStoreHTTP2), pairs: pairsOf(r.samples[ours], syncSecs, r.samples[cacheStoreHTTP2], syncSecs), unit: "s", format: "%.2f"},
			{key: "sync.floor.http2", metric: "the LIST alone, JSON (read and discarded), HTTP/1.1 against HTTP/2", ours: secs(floorJSON), baselineName: string(floorJSONHTTP2), baseline: secs(floorJSONHTTP2), pairs: pairsOf(r.samples[floorJSON], syncSecs, r.samples[floorJSONHTTP2], syncSecs), unit: "s", format: "%.2f"},
			{key: "sync.cpu", metric: "CPU to sync (whole benchmark process)", ours: cpu(ours), baselineName: typed, baseline: cpu(cacheTyped), pairs: pairsOf(r.samples[ours], syncCPU, r.samples[cacheTyped], syncCPU), unit: "s", format: "%.2f"},
			{key: "sync.cpu.json", metric: "CPU to sync (whole benchmark process)", ours: cpu(ours), baselineName: string(cacheTypedJSON), baseline: cpu(cacheTypedJSON), pairs: pairsOf(r.samples[ours], syncCPU, r.samples[cacheTypedJSON], syncCPU), unit: "s", format: "%.2f"},
			{key: "sync.cpu.list", metric: "CPU to sync (whole benchmark process)", ours: cpu(ours), baselineName: string(cacheTypedList), baseline: cpu(cacheTypedList), pairs: pairsOf(r.samples[ours], syncCPU, r.samples[cacheTypedList], syncCPU), unit: "s", format: "%.2f"},
			{key: "sync.cpu.json.list", metric: "CPU to sync (whole benchmark process), the same protocol path", ours: cpu(ours), baselineName: string(cacheTypedJSONList), baseline: cpu(cacheTypedJSONList), pairs: pairsOf(r.samples[ours], syncCPU, r.samples[cacheTypedJSONList], syncCPU), unit: "s", format: "%.2f"},
			{key: "sync.cpu.streaming", metric: "CPU to sync (whole benchmark process), both by a streaming list over JSON", ours: cpu(cacheStoreStreaming), baselineName: string(cacheTypedJSON), baseline: cpu(cacheTypedJSON), pairs: pairsOf(r.samples[cacheStoreStreaming], syncCPU, r.samples[cacheTypedJSON], syncCPU), unit: "s", format: "%.2f"},
			{key: "sync.crd", metric: "sync time, Widgets (a CRD)", ours: secs(cacheStoreCRD), baselineName: string(cacheDynamicCRD), baseline: secs(cacheDynamicCRD), pairs: pairsOf(r.samples[cacheStoreCRD], syncSecs, r.samples[cacheDynamicCRD], syncSecs), unit: "s", format: "%.2f", target: syncCRDTarget},
			{key: "sync.crd.floor", metric: "sync time, Widgets (a CRD)", ours: secs(cacheStoreCRD), baselineName: string(floorCRD), baseline: secs(floorCRD), pairs: pairsOf(r.samples[cacheStoreCRD], syncSecs, r.samples[floorCRD], syncSecs), unit: "s", format: "%.2f"},
			{key: "heap", metric: "heap per object after GC", ours: perObject(ours), baselineName: typed + " (managedFields kept)", baseline: perObject(cacheTyped), pairs: pairsOf(r.samples[ours], syncSample.perObject, r.samples[cacheTyped], syncSample.perObject), unit: "B", format: "%.0f", target: heapTarget},
			{key: "heap.stripped", metric: "heap per object after GC", ours: perObject(ours), baselineName: string(cacheTypedStripped), baseline: perObject(cacheTypedStripped), pairs: pairsOf(r.samples[ours], syncSample.perObject, r.samples[cacheTypedStripped], syncSample.perObject), unit: "B", format: "%.0f"},
			{key: "heap.list", metric: "heap per object after GC", ours: perObject(ours), baselineName: string(cacheTypedList), baseline: perObject(cacheTypedList), pairs: pairsOf(r.samples[ours], syncSample.perObject, r.samples[cacheTypedList], syncSample.perObject), unit: "B", format: "%.0f"},
			{key: "heap.dynamic", metric: "heap per object after GC", ours: perObject(ours), baselineName: string(cacheDynamic), baseline: perObject(cacheDynamic), pairs: pairsOf(r.samples[ours], syncSample.perObject, r.samples[cacheDynamic], syncSample.perObject), unit: "B", format: "%.0f"},
			{key: "heap.crd", metric: "heap per object after GC, Widgets", ours: perObject(cacheStoreCRD), baselineName: typed + " of the ConfigMaps", baseline: perObject(cacheTyped), pairs: pairsOf(r.samples[cacheStoreCRD], syncSample.perObject, r.samples[cacheTyped], syncSample.perObject), unit: "B", format: "%.0f", target: heapTarget},
			{key: "heap.crd.dynamic", metric: "heap per object after GC, Widgets", ours: perObject(cacheStoreCRD), baselineName: string(cacheDynamicCRD), baseline: perObject(cacheDynamicCRD), pairs: pairsOf(r.samples[cacheStoreCRD], syncSample.perObject, r.samples[cacheDynamicCRD], syncSample.perObject), unit: "B", format: "%.0f"},
		},
	}
	for _, kind := range cacheKinds() {
		s.notes = append(s.notes, fmt.Sprintf("%s: %s", kind, joinSep(r.samples[kind], "; ", func(x syncSample) string {
			if x.objects < 0 {
				return fmt.Sprintf("%.2f s (%.2f s CPU)", x.elapsed.Seconds(), x.cpu.Seconds())
			}
			return fmt.Sprintf("%.2f s (%.2f s CPU), %.0f B/object (%.1f MiB)", x.elapsed.Seconds(), x.cpu.Seconds(), x.perObject(), mib(x.heap))
		})))
	}
	return []section{s}
}

func (r relistResult) sections(cfg config) []section {
	peakF := func(s relistSample) float64 { return mib(s.peak.inuse) }
	liveF := func(s relistSample) float64 { return mib(s.peak.live) }
	steadyF := func(s relistSample) float64 { return mib(s.steady) }
	afterF := func(s relistSample) float64 { return mib(s.after) }
	peak, live, steady, after := medianOf(r.samples, peakF), medianOf(r.samples, liveF), medianOf(r.samples, steadyF), medianOf(r.samples, afterF)
	// Each relist's peak is paired with the steady heap before it.
	vsSteady := func(f func(relistSample) float64) []pair { return pairsOf(r.samples, f, r.samples, steadyF) }
	secs := medianOf(r.samples, func(s relistSample) float64 { return s.elapsed.Seconds() })
	gogc := os.Getenv("GOGC")
	if gogc == "" {
		gogc = "100 (default)"
	}
	const steadyName = "steady HeapInuse after GC before it"
	s := section{
		title: fmt.Sprintf("Relist into a synced store (%s ConfigMaps)", count(cfg.objects)),
		about: "Each relist is into a new store, synced by one watcher which is then stopped; a second watcher into " +
			"the same store lists again (Init, InitApply..., InitDone). HeapInuse (whole process) is sampled every 5 ms from its start to " +
			"InitDone applied. GOGC=" + gogc + ".",
		rows: []row{
			{key: "relist.peak", metric: "peak HeapInuse during the relist", ours: peak, baselineName: steadyName, baseline: steady, pairs: vsSteady(peakF), unit: "MiB", format: "%.1f", target: relistPeakLimit},
			{key: "relist.live", metric: "peak live heap as of the last GC", ours: live, baselineName: steadyName, baseline: steady, pairs: vsSteady(liveF), unit: "MiB", format: "%.1f"},
			{key: "relist.after", metric: "steady HeapInuse after GC, after it (1.00x if it keeps nothing)", ours: after, baselineName: steadyName, baseline: steady, pairs: vsSteady(afterF), unit: "MiB", format: "%.1f"},
			{key: "relist.time", metric: "time to InitDone applied", ours: secs, unit: "s", format: "%.2f"},
		},
	}
	for i, x := range r.samples {
		s.notes = append(s.notes, fmt.Sprintf("relist %d: %s; peak %.1f MiB (live %.1f MiB) over %d samples; steady %.1f MiB before, %.1f MiB after; "+
			"%.1f MiB in use before the store existed", i+1, x.elapsed.Round(time.Millisecond), mib(x.peak.inuse), mib(x.peak.live),
			x.peak.samples, mib(x.steady), mib(x.after), mib(x.base)))
	}
	return []section{s}
}
