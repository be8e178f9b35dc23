//go:build linux

package main

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// Targets of the get, memory and relist rows: the largest ratio
// kubectl-reflect/baseline we aim for.
const (
	getTarget        = 0.25 // cold get against kubectl get
	syncTarget       = 1.0  // in-process sync time against the typed informer
	heapTarget       = 0.5  // heap per object against the typed informer
	relistPeakLimit  = 1.5  // peak heap during a relist against the steady heap
	getJSONRSSTarget = 0.3  // peak RSS of get -o json against kubectl's
)

func (r getResult) rows() []row {
	med := func(cmd getCommand, f func(getSample) float64) float64 { return medianOf(r.samples[cmd], f) }
	secs := func(s getSample) float64 { return s.elapsed.Seconds() }
	rss := func(s getSample) float64 { return mib(s.hwm) }
	return []row{
		{metric: "`get cm -A`, cold: wall time to exit", ours: med(reflectGetAll, secs), baseline: med(kubectlGetAll, secs), unit: "s", format: "%.2f", target: getTarget},
		{metric: "`get cm -A --list-mode=streaming`, cold (reference)", ours: med(reflectGetAllStreaming, secs), baseline: med(kubectlGetAll, secs), unit: "s", format: "%.2f"},
		{metric: "`get cm -A --list-mode=paged`, cold (reference)", ours: med(reflectGetAllPaged, secs), baseline: med(kubectlGetAll, secs), unit: "s", format: "%.2f"},
		{metric: "`get cm -n NS -o json`, cold: wall time to exit (reference)", ours: med(reflectGetJSON, secs), baseline: med(kubectlGetJSON, secs), unit: "s", format: "%.2f"},
		{metric: "`get cm -n NS -o json`: peak RSS (VmHWM sampled every 20 ms)", ours: med(reflectGetJSON, rss), baseline: med(kubectlGetJSON, rss), unit: "MiB", format: "%.1f", target: getJSONRSSTarget},
		{metric: "`get cm -A`: peak RSS (VmHWM sampled every 20 ms; reference)", ours: med(reflectGetAll, rss), baseline: med(kubectlGetAll, rss), unit: "MiB", format: "%.1f"},
	}
}

func (r getResult) writeNotes(b *strings.Builder) {
	b.WriteString("\nGet rows: every run is a new process, timed from its start to its exit with all of its stdout read; " +
		"both tools share a warm discovery cache and omit metadata.managedFields from -o json.\n\n")
	for _, cmd := range getCommands() {
		s := r.samples[cmd]
		if len(s) == 0 {
			continue
		}
		parts := make([]string, len(s))
		for i, x := range s {
			parts[i] = fmt.Sprintf("%.2f", x.elapsed.Seconds())
		}
		fmt.Fprintf(b, "- `%s` (s): %s; %d lines, %.1f MiB printed\n", cmd, strings.Join(parts, ", "), s[0].lines, mib(s[0].bytes))
	}
	ours, theirs := r.samples[reflectGetAll], r.samples[kubectlGetAll]
	if len(ours) > 0 && len(theirs) > 0 && ours[0].lines != theirs[0].lines {
		fmt.Fprintf(b, "- warning: `get cm -A` printed %d lines, kubectl %d\n", ours[0].lines, theirs[0].lines)
	}
}

func (r memoryResult) rows() []row {
	secs := func(kind cacheKind) float64 {
		return medianOf(r.samples[kind], func(s syncSample) float64 { return s.elapsed.Seconds() })
	}
	cpu := func(kind cacheKind) float64 {
		return medianOf(r.samples[kind], func(s syncSample) float64 { return s.cpu.Seconds() })
	}
	perObject := func(kind cacheKind) float64 { return medianOf(r.samples[kind], syncSample.perObject) }
	ours := cacheStore
	return []row{
		{metric: "in-process sync time: store vs typed informer", ours: secs(ours), baseline: secs(cacheTyped), unit: "s", format: "%.2f", target: syncTarget},
		{metric: "in-process sync time: store vs typed informer, managedFields stripped (reference)", ours: secs(ours), baseline: secs(cacheTypedStripped), unit: "s", format: "%.2f"},
		{metric: "in-process sync time: store vs typed informer over JSON (reference: the store's wire format)", ours: secs(ours), baseline: secs(cacheTypedJSON), unit: "s", format: "%.2f"},
		{metric: "in-process sync time: store vs dynamic informer (reference)", ours: secs(ours), baseline: secs(cacheDynamic), unit: "s", format: "%.2f"},
		{metric: "in-process CPU to sync (whole benchmark process): store vs typed informer (reference)", ours: cpu(ours), baseline: cpu(cacheTyped), unit: "s", format: "%.2f"},
		{metric: "in-process CPU to sync (whole benchmark process): store vs typed informer over JSON (reference)", ours: cpu(ours), baseline: cpu(cacheTypedJSON), unit: "s", format: "%.2f"},
		{metric: "heap per object after GC: store vs typed informer (managedFields kept)", ours: perObject(ours), baseline: perObject(cacheTyped), unit: "B", format: "%.0f", target: heapTarget},
		{metric: "heap per object after GC: store vs typed informer, managedFields stripped (reference)", ours: perObject(ours), baseline: perObject(cacheTypedStripped), unit: "B", format: "%.0f"},
		{metric: "heap per object after GC: store vs dynamic informer (reference)", ours: perObject(ours), baseline: perObject(cacheDynamic), unit: "B", format: "%.0f"},
		{metric: "heap per object after GC, custom resources (the same data as Widgets): store of Widgets vs typed informer of ConfigMaps", ours: perObject(cacheStoreCRD), baseline: perObject(cacheTyped), unit: "B", format: "%.0f", target: heapTarget},
		{metric: "heap per object after GC, custom resources: store vs dynamic informer of Widgets (reference)", ours: perObject(cacheStoreCRD), baseline: perObject(cacheDynamicCRD), unit: "B", format: "%.0f"},
		{metric: "in-process sync time, custom resources: store vs dynamic informer of Widgets (reference)", ours: secs(cacheStoreCRD), baseline: secs(cacheDynamicCRD), unit: "s", format: "%.2f"},
	}
}

func (r memoryResult) writeNotes(b *strings.Builder) {
	b.WriteString("\nIn-process rows: each cache syncs the namespace in the benchmark's own process, one at a time, with its own client " +
		"from the same rest.Config (QPS 1000, burst 2000); time from building its client to synced; heap = HeapInuse after two GCs " +
		"with the cache synced and alive, less the same before it started, divided by the objects it holds. " +
		"The store is pkg/watch into pkg/store as the commands run them (one LIST decoded as it arrives, then a watch), " +
		"with managedFields and last-applied pruned and objects packed, over JSON; client-go's informers use its defaults " +
		"(a streaming list, WatchListClient; the typed client reads protobuf, the dynamic client JSON) but for the informer told to use JSON.\n\n")
	for _, kind := range cacheKinds() {
		s := r.samples[kind]
		parts := make([]string, len(s))
		for i, x := range s {
			parts[i] = fmt.Sprintf("%.2f s (%.2f s CPU), %.0f B/object (%.1f MiB)", x.elapsed.Seconds(), x.cpu.Seconds(), x.perObject(), mib(x.heap))
		}
		fmt.Fprintf(b, "- %s: %s\n", kind, strings.Join(parts, "; "))
	}
}

func (r relistResult) rows() []row {
	med := func(f func(relistSample) int64) float64 {
		return medianOf(r.samples, func(s relistSample) float64 { return mib(f(s)) })
	}
	peak := med(func(s relistSample) int64 { return s.peak.inuse })
	live := med(func(s relistSample) int64 { return s.peak.live })
	steady := med(func(s relistSample) int64 { return s.steady })
	after := med(func(s relistSample) int64 { return s.after })
	secs := medianOf(r.samples, func(s relistSample) float64 { return s.elapsed.Seconds() })
	return []row{
		{metric: "relist into a synced store: peak HeapInuse vs steady HeapInuse after GC before it (whole process)", ours: peak, baseline: steady, unit: "MiB", format: "%.1f", target: relistPeakLimit},
		{metric: "relist: peak live heap as of the last GC vs steady before it (reference)", ours: live, baseline: steady, unit: "MiB", format: "%.1f"},
		{metric: "relist: steady HeapInuse after GC, after it vs before it (reference; 1.00 if it keeps nothing)", ours: after, baseline: steady, unit: "MiB", format: "%.1f"},
		{metric: "relist: time to InitDone applied (reference)", ours: secs, unit: "s", format: "%.2f"},
	}
}

func (r relistResult) writeNotes(b *strings.Builder) {
	gogc := os.Getenv("GOGC")
	if gogc == "" {
		gogc = "100 (default)"
	}
	fmt.Fprintf(b, "\nRelist rows: each relist is into a new store, synced by one watcher which is then stopped; a second watcher into "+
		"the same store lists again (Init, InitApply..., InitDone). HeapInuse (whole process) is sampled every 5 ms from its start to "+
		"InitDone applied. GOGC=%s.\n\n", gogc)
	for i, s := range r.samples {
		fmt.Fprintf(b, "- relist %d: %s; peak %.1f MiB (live %.1f MiB) over %d samples; steady %.1f MiB before, %.1f MiB after; "+
			"%.1f MiB in use before the store existed\n", i+1, s.elapsed.Round(time.Millisecond), mib(s.peak.inuse), mib(s.peak.live),
			s.peak.samples, mib(s.steady), mib(s.after), mib(s.base))
	}
}
