//go:build linux

package main

import (
	"fmt"
	"strings"
	"time"
)

// Targets of the serve rows (issue 10, section Speed).
const (
	serveGetTarget = 0.05                  // get through a warm daemon against kubectl get at the API server
	fanoutLagLimit = 50 * time.Millisecond // event lag p99 through the daemon, absolute
)

func (r serveResult) rows() []row {
	getSecs := func(s getSample) float64 { return s.elapsed.Seconds() }
	secs := func(cmd serveCommand) float64 { return medianOf(r.get[cmd], getSecs) }
	f := r.fanout
	med := func(s []fanoutSample, v func(fanoutSample) float64) float64 { return medianOf(s, v) }
	watches := func(s fanoutSample) float64 { return float64(s.watches) }
	p50 := func(s fanoutSample) float64 { return ms(percentile(s.lags, 50)) }
	p99 := func(s fanoutSample) float64 { return ms(percentile(s.lags, 99)) }
	rate := func(s fanoutSample) float64 { return s.rate }
	reached := fmt.Sprintf("paced at %d updates/s (reached: %.0f/s through the daemon, %.0f/s plain, medians)", fanoutRate, med(f.daemon, rate), med(f.plain, rate))
	rss := func(s fanoutSample) float64 { return mib(s.rss) }
	hwm := func(s fanoutSample) float64 { return mib(s.hwm) }
	n := fanoutClients
	return []row{
		{key: "serve.get", baselineName: "kubectl get cm -A --chunk-size=0 at the API server (unthrottled: one LIST)", metric: "serve: `get cm -A` with a warm daemon vs kubectl unthrottled at the API server: wall time to exit", ours: secs(reflectGetDaemon), baseline: secs(kubectlGetServer), pairs: samePairs(r.get[reflectGetDaemon], r.get[kubectlGetServer], getSecs), unit: "s", format: "%.2f", target: serveGetTarget},
		{key: "serve.get.throttled", baselineName: "kubectl get cm -A at the API server (pages of 500, client-side rate limit)", metric: "serve: `get cm -A` with a warm daemon vs kubectl's throttled default at the API server: wall time to exit (reference)", ours: secs(reflectGetDaemon), baseline: secs(kubectlGetServerThrottled), pairs: samePairs(r.get[reflectGetDaemon], r.get[kubectlGetServerThrottled], getSecs), unit: "s", format: "%.2f"},
		{key: "serve.get.kubectl", baselineName: "kubectl get cm -A at the API server (pages of 500, client-side rate limit)", metric: "serve: `kubectl get cm -A` with the daemon's kubeconfig vs at the API server, both kubectl's default: wall time to exit (reference)", ours: secs(kubectlGetDaemon), baseline: secs(kubectlGetServerThrottled), pairs: samePairs(r.get[kubectlGetDaemon], r.get[kubectlGetServerThrottled], getSecs), unit: "s", format: "%.2f"},
		{key: "serve.watches", baselineName: "ten kubectl get cm -A -w", metric: fmt.Sprintf("serve: API server WATCHes of ConfigMaps opened by the daemon and %d watch clients (1 wanted) vs %d `kubectl get cm -A -w`", n, n), ours: med(f.daemon, watches), baseline: med(f.plain, watches), pairs: samePairs(f.daemon, f.plain, watches), unit: "watches", format: "%.0f"},
		{key: "serve.lag.p50", baselineName: "ten kubectl get cm -A -w", metric: fmt.Sprintf("serve: event lag p50, update sent → row printed, %s, %d clients through the daemon vs %d `kubectl get -w` at the API server (reference)", reached, n, n), ours: med(f.daemon, p50), baseline: med(f.plain, p50), pairs: samePairs(f.daemon, f.plain, p50), unit: "ms", format: "%.1f"},
		{key: "serve.lag.p99", limit: ms(fanoutLagLimit), baselineName: "ten kubectl get cm -A -w", metric: fmt.Sprintf("serve: event lag p99, likewise (target < %s)", fanoutLagLimit), ours: med(f.daemon, p99), baseline: med(f.plain, p99), pairs: samePairs(f.daemon, f.plain, p99), unit: "ms", format: "%.1f"},
		{key: "serve.rss", baselineName: "ten kubectl get cm -A -w", metric: fmt.Sprintf("serve: total RSS, daemon + %d clients vs %d `kubectl get cm -A -w` (VmRSS summed)", n, n), ours: med(f.daemon, rss), baseline: med(f.plain, rss), pairs: samePairs(f.daemon, f.plain, rss), unit: "MiB", format: "%.1f"},
		{key: "serve.hwm", baselineName: "ten kubectl get cm -A -w", metric: "serve: total peak RSS, likewise (VmHWM summed; reference)", ours: med(f.daemon, hwm), baseline: med(f.plain, hwm), pairs: samePairs(f.daemon, f.plain, hwm), unit: "MiB", format: "%.1f"},
	}
}

// sections is the serve part's table, its notes after it.
func (r serveResult) sections(cfg config) []section {
	var notes strings.Builder
	r.writeNotes(&notes)
	return []section{{title: fmt.Sprintf("`serve cm`: get through a warm daemon, fan-out of %d watchers", fanoutClients),
		rows: r.rows(), extra: strings.TrimPrefix(notes.String(), "\n")}}
}

func (r serveResult) writeNotes(b *strings.Builder) {
	f := r.fanout
	fmt.Fprintf(b, "\nServe rows: one `kubectl-reflect serve cm` is started and waited for until it prints its kubeconfig "+
		"(its reflectors synced, it listens); the gets are new processes timed to their exit, after one warm-up run each; kubectl's headline baseline "+
		"at the API server is unthrottled (`--chunk-size=0`, one LIST: kubectl 1.37 has no way to lift its client-side rate limit), its default the row so labelled. "+
		"The daemon is then stopped. Fan-out rounds take turns (which goes first alternates): %d watchers through a daemon started for the round "+
		"(%d `kubectl-reflect watch cm -A`, the rest `kubectl get cm -A -w` with "+
		"the daemon's kubeconfig), stopped after it, and, with no daemon running, %d `kubectl get cm -A -w` at the API server; each round "+
		"waits until every watcher printed its initial list and a change of a sentinel, reads the API server's "+
		"`apiserver_longrunning_requests{verb=\"WATCH\",resource=\"configmaps\"}` (the figure is what the round added to "+
		"the count before the daemon started), then patches %d other ConfigMaps once each, paced at %d a second by the benchmark's writers (at least %d in "+
		"parallel; the rate reached is below). Lag is from the send of an update's patch call "+
		"(as a timestamp written into the update would measure it: the write included) to the watcher's "+
		"row of it reaching the benchmark through a pipe, all on the same machine, never clamped; the rows that came before "+
		"their call returned are counted in the samples. RSS is read from /proc just after the last row, "+
		"summed over the daemon and its clients or over the plain watchers.\n\n",
		fanoutClients, fanoutClients/2, fanoutClients, f.updates, fanoutRate, fanoutWriters)
	b.WriteString("Samples, one per run:\n\n")
	for _, cmd := range serveCommands() {
		if s := r.get[cmd]; len(s) > 0 {
			parts := make([]string, len(s))
			for i, x := range s {
				parts[i] = fmt.Sprintf("%.2f", x.elapsed.Seconds())
			}
			fmt.Fprintf(b, "- `%s` (s): %s; %d lines\n", cmd, strings.Join(parts, ", "), s[0].lines)
		}
	}
	for _, side := range []struct {
		name string
		s    []fanoutSample
	}{{"through the daemon", f.daemon}, {"plain kubectl at the API server", f.plain}} {
		if len(side.s) > 0 {
			fmt.Fprintf(b, "- fan-out %s: %s\n", side.name, formatFanout(side.s))
		}
	}
	for _, w := range r.warnings() {
		fmt.Fprintf(b, "- warning: %s\n", w)
	}
}

func formatFanout(s []fanoutSample) string {
	parts := make([]string, len(s))
	for i, x := range s {
		daemon := ""
		if x.daemon > 0 {
			daemon = fmt.Sprintf(" (the daemon's %.1f MiB, the kubectl-reflect watchers' %.1f MiB)", mib(x.daemon), mib(x.reflectClients))
		}
		parts[i] = fmt.Sprintf("%d WATCHes, %.0f updates/s, lag from the send p50 %.1f ms p99 %.1f ms max %.1f ms (%d of %d rows before the call returned), %d missed, RSS %.1f MiB%s, VmHWM %.1f MiB",
			x.watches, x.rate, ms(percentile(x.lags, 50)), ms(percentile(x.lags, 99)), ms(percentile(x.lags, 100)),
			x.early, len(x.lags),
			x.missed, mib(x.rss), daemon, mib(x.hwm))
	}
	return strings.Join(parts, "; ")
}

// warnings note anything that makes a serve figure doubtful or a target
// missed.
func (r serveResult) warnings() []string {
	var ws []string
	if r.serverLists > 0 {
		ws = append(ws, fmt.Sprintf("the API server answered %d LISTs of ConfigMaps while `kubectl-reflect get` ran with the daemon: it did not read them all from the daemon", r.serverLists))
	}
	if r.watchesDaemonOnly != 1 {
		ws = append(ws, fmt.Sprintf("the daemon alone added %d WATCHes of ConfigMaps at the API server, not 1", r.watchesDaemonOnly))
	}
	for i, s := range r.fanout.daemon {
		if s.watches != 1 {
			ws = append(ws, fmt.Sprintf("round %d: the daemon and its clients added %d WATCHes at the API server, not 1", i+1, s.watches))
		}
		if p := percentile(s.lags, 99); p >= fanoutLagLimit {
			ws = append(ws, fmt.Sprintf("round %d: lag p99 %s through the daemon is not below the %s target", i+1, p.Round(time.Millisecond/10), fanoutLagLimit))
		}
		if s.rate < 0.9*fanoutRate {
			ws = append(ws, fmt.Sprintf("round %d: the benchmark made %.0f updates/s, not %d", i+1, s.rate, fanoutRate))
		}
	}
	for i, s := range append(append([]fanoutSample{}, r.fanout.daemon...), r.fanout.plain...) {
		if s.missed > 0 {
			ws = append(ws, fmt.Sprintf("fan-out run %d: %d updates never printed by some watcher", i+1, s.missed))
		}
	}
	return ws
}
