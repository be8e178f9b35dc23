//go:build linux

package main

import (
	"context"
	"fmt"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
)

// Targets of the watch rows: the largest ratio kubectl-reflect/kubectl.
const (
	watchTarget     = 0.5  // time to the initial state
	liveCPUTarget   = 0.35 // CPU per live NDJSON event (issue 11)
	watchPeakTarget = 0.25 // peak RSS after the initial list (issue 11)
)

// watchResult is the watch part: time to the initial state and CPU per
// live event.
type watchResult struct {
	initial initialResult
	live    liveResult
}

func measureWatch(ctx context.Context, e *env) (watchResult, error) {
	var r watchResult
	var err error
	if r.initial, err = measureInitial(ctx, e); err != nil {
		return r, err
	}
	r.live, err = measureLive(ctx, e)
	return r, err
}

func (r watchResult) sections(cfg config) []section {
	about := "Baselines are `kubectl get cm -o json --chunk-size=0` for the initial-state rows: kubectl unthrottled, one LIST (kubectl 1.37 has no flag, " +
		"kubeconfig field or variable that lifts client-go's client-side rate limit, which spaces its pages of 500 200 ms apart after the first ten; " +
		"its throttled default is the row so labelled), " +
		"`kubectl get cm -o name --chunk-size=0` for `-o name`, `kubectl get cm -w --watch-only --output-watch-events -o json` for live events. " +
		"kubectl-reflect's time is to its N-th printed line, kubectl's to its exit; " +
		"both omit metadata.managedFields from -o json unless --show-managed-fields, " +
		"but for kubectl's --output-watch-events, whose events keep them: the live rows' headline is ours with --show-managed-fields, " +
		"the same fields, with the bytes each side prints per event; " +
		"kubectl-reflect's memory is read at its N-th line, kubectl's sampled every 20 ms " +
		"(not rusage's maxrss, which starts at the benchmark's own peak RSS)."
	initial := section{title: fmt.Sprintf("`watch cm -o json`: the initial list (%s ConfigMaps)", count(cfg.objects)), about: about, rows: r.initialRows()}
	for _, cmd := range listCommands() {
		if s := r.initial.samples[cmd]; len(s) > 0 {
			note := fmt.Sprintf("`%s` (s): %s", cmd, joinf(s, func(x listSample) string { return fmt.Sprintf("%.2f", x.elapsed.Seconds()) }))
			if s[0].mem.anon > 0 { // read at the N-th line: split into the heap's pages and the binary's
				note += "; VmHWM (MiB): " + joinf(s, func(x listSample) string { return fmt.Sprintf("%.1f", mib(x.mem.hwm)) }) +
					"; RssAnon (MiB): " + joinf(s, func(x listSample) string { return fmt.Sprintf("%.1f", mib(x.mem.anon)) })
			}
			initial.notes = append(initial.notes, note)
		}
	}
	live := section{title: fmt.Sprintf("`watch cm --watch-only -o json`: live events (%s updates)", count(r.live.events)), rows: r.liveRows()}
	perEv := func(x liveSample) string { return fmt.Sprintf("%.3f", perEvent(x.cpu, r.live.events)) }
	delivered := func(x liveSample) string { return fmt.Sprintf("%.2f", x.delivered.Seconds()) }
	live.notes = append(live.notes, "CPU per live event (ms), kubectl-reflect: "+joinf(r.live.reflect, perEv))
	live.notes = append(live.notes, "CPU per live event (ms), kubectl-reflect over HTTP/2: "+joinf(r.live.http2, perEv))
	live.notes = append(live.notes, "CPU per live event (ms), kubectl-reflect --show-managed-fields: "+joinf(r.live.managed, perEv))
	bytesEv := func(x liveSample) string { return fmt.Sprintf("%.0f", float64(x.bytes)/float64(max(r.live.events, 1))) }
	live.notes = append(live.notes, "bytes printed per live event, kubectl-reflect: "+joinf(r.live.reflect, bytesEv)+
		"; with --show-managed-fields: "+joinf(r.live.managed, bytesEv)+"; kubectl: "+joinf(r.live.kubectl, bytesEv))
	if len(r.live.kubectl) > 0 {
		live.notes = append(live.notes, "CPU per live event (ms), kubectl: "+joinf(r.live.kubectl, perEv))
	}
	d := "live events delivered, first update to last event printed (s): kubectl-reflect " + joinf(r.live.reflect, delivered)
	if len(r.live.kubectl) > 0 {
		d += "; kubectl " + joinf(r.live.kubectl, delivered)
	}
	live.notes = append(live.notes, d)
	for _, w := range r.liveWarnings() {
		live.notes = append(live.notes, "warning: "+w)
	}
	return []section{initial, live}
}

// initialRows are the rows of the initial list.
func (r watchResult) initialRows() []row {
	med := func(cmd listCommand, f func(listSample) float64) float64 { return medianOf(r.initial.samples[cmd], f) }
	secs := func(s listSample) float64 { return s.elapsed.Seconds() }
	peak := func(s listSample) float64 { return mib(s.mem.peak()) } // not maxRSS: see maxRSS
	hwm := func(s listSample) float64 { return mib(s.mem.hwm) }
	rss := func(s listSample) float64 { return mib(s.mem.rss) }
	json, name := string(kubectlJSON), string(kubectlName)
	return []row{
		{key: "watch.time", metric: "time to the last initial event, -o json (one LIST, the default)", ours: med(reflectJSON, secs), baselineName: json, baseline: med(kubectlJSON, secs), pairs: pairsOf(r.initial.samples[reflectJSON], secs, r.initial.samples[kubectlJSON], secs), unit: "s", format: "%.2f", target: watchTarget},
		{key: "watch.time.streaming", metric: "time to the last initial event, -o json --list-mode=streaming (a streaming list)", ours: med(reflectStreaming, secs), baselineName: json, baseline: med(kubectlJSON, secs), pairs: pairsOf(r.initial.samples[reflectStreaming], secs, r.initial.samples[kubectlJSON], secs), unit: "s", format: "%.2f", target: watchTarget},
		{key: "watch.time.paged", metric: "time to the last initial event, -o json --list-mode=paged (LIST 500 at a time)", ours: med(reflectPaged, secs), baselineName: json, baseline: med(kubectlJSON, secs), pairs: pairsOf(r.initial.samples[reflectPaged], secs, r.initial.samples[kubectlJSON], secs), unit: "s", format: "%.2f", target: watchTarget},
		{key: "watch.time.throttled", metric: "time to the last initial event, -o json, against kubectl's throttled default (reference)", ours: med(reflectJSON, secs), baselineName: string(kubectlJSONThrottled) + " (pages of 500, client-side rate limit)", baseline: med(kubectlJSONThrottled, secs), pairs: pairsOf(r.initial.samples[reflectJSON], secs, r.initial.samples[kubectlJSONThrottled], secs), unit: "s", format: "%.2f"},
		{key: "watch.time.managed", metric: "time to the last initial event, -o json --show-managed-fields (kubectl's bytes)", ours: med(reflectManaged, secs), baselineName: json, baseline: med(kubectlJSON, secs), pairs: pairsOf(r.initial.samples[reflectManaged], secs, r.initial.samples[kubectlJSON], secs), unit: "s", format: "%.2f"},
		{key: "watch.time.name", metric: "time to the last initial event, -o name", ours: med(reflectName, secs), baselineName: name, baseline: med(kubectlName, secs), pairs: pairsOf(r.initial.samples[reflectName], secs, r.initial.samples[kubectlName], secs), unit: "s", format: "%.2f"},
		{key: "watch.rss", metric: "peak RSS after the initial list, -o json (VmHWM; kubectl: whole run)", ours: med(reflectJSON, hwm), baselineName: json, baseline: med(kubectlJSON, peak), pairs: pairsOf(r.initial.samples[reflectJSON], hwm, r.initial.samples[kubectlJSON], peak), unit: "MiB", format: "%.1f", target: watchPeakTarget},
		{key: "watch.rss.now", metric: "RSS at the last initial event, -o json (VmRSS)", ours: med(reflectJSON, rss), unit: "MiB", format: "%.1f"},
	}
}

// liveRows are the rows of the live events.
func (r watchResult) liveRows() []row {
	cpuPerEvent := func(s liveSample) float64 { return perEvent(s.cpu, r.live.events) }
	liveHWM := func(s liveSample) float64 { return mib(s.mem.hwm) }
	base := "kubectl get cm -w --watch-only --output-watch-events -o json"
	bytesPerEvent := func(s []liveSample) float64 {
		return medianOf(s, func(x liveSample) float64 { return float64(x.bytes) / float64(max(r.live.events, 1)) })
	}
	kubectlBytes := bytesPerEvent(r.live.kubectl)
	return []row{
		{key: "live.cpu", metric: fmt.Sprintf("CPU per live event, -o json --show-managed-fields: the fields kubectl's events print, managedFields included (bytes printed per event: ours %.0f, compact NDJSON; kubectl's %.0f, indented)", bytesPerEvent(r.live.managed), kubectlBytes),
			ours: medianOf(r.live.managed, cpuPerEvent), baselineName: base,
			baseline: medianOf(r.live.kubectl, cpuPerEvent), pairs: samePairs(r.live.managed, r.live.kubectl, cpuPerEvent), unit: "ms", format: "%.3f", target: liveCPUTarget},
		{key: "live.cpu.pruned", metric: fmt.Sprintf("CPU per live event, -o json (the default: managedFields pruned; bytes printed per event: ours %.0f, kubectl's %.0f; reference)", bytesPerEvent(r.live.reflect), kubectlBytes),
			ours: medianOf(r.live.reflect, cpuPerEvent), baselineName: base,
			baseline: medianOf(r.live.kubectl, cpuPerEvent), pairs: samePairs(r.live.reflect, r.live.kubectl, cpuPerEvent), unit: "ms", format: "%.3f"},
		{key: "live.cpu.http2", metric: "CPU per live event, -o json, HTTP/1.1 (the default) against HTTP/2", ours: medianOf(r.live.reflect, cpuPerEvent),
			baselineName: "the same command with " + kube.HTTP2Env + "=1", baseline: medianOf(r.live.http2, cpuPerEvent), pairs: samePairs(r.live.reflect, r.live.http2, cpuPerEvent), unit: "ms", format: "%.3f"},
		{key: "live.rss", metric: "peak RSS while watching live events (VmHWM)", ours: medianOf(r.live.reflect, liveHWM), baselineName: base,
			baseline: medianOf(r.live.kubectl, liveHWM), pairs: samePairs(r.live.reflect, r.live.kubectl, liveHWM), unit: "MiB", format: "%.1f"},
	}
}

// liveWarnings notes anything odd about the live measurement.
func (r watchResult) liveWarnings() []string {
	var ws []string
	check := func(name string, s liveSample) {
		if s.extra != 0 {
			ws = append(ws, fmt.Sprintf("%s printed %d records more than the %d events", name, s.extra, r.live.events))
		}
		if !s.cleanExit {
			ws = append(ws, fmt.Sprintf("%s did not exit within 10s of SIGTERM and was killed", name))
		}
	}
	for _, s := range r.live.reflect {
		check("kubectl-reflect", s)
	}
	for _, s := range r.live.http2 {
		check("kubectl-reflect over HTTP/2", s)
	}
	for _, s := range r.live.managed {
		check("kubectl-reflect --show-managed-fields", s)
	}
	for _, s := range r.live.kubectl {
		check("kubectl", s)
	}
	return ws
}
