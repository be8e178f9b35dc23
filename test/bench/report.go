//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"
)

// watchTarget is the largest ratio kubectl-reflect/baseline we aim for in
// the watch rows.
const watchTarget = 0.5

// machine describes where the benchmark ran.
type machine struct {
	cpus       int
	cpuModel   string
	goVersion  string
	kubectl    string // kubectl version --client, or "n/a"
	reflect    string // kubectl-reflect version
	kubeServer string // the API server's version
	loadStart  string // /proc/loadavg's 1-minute load average before the measurements
	loadEnd    string // and after them
}

func machineInfo(ctx context.Context, e *env) (machine, error) {
	m := machine{cpus: runtime.NumCPU(), cpuModel: cpuModel(), goVersion: runtime.Version(), kubectl: "n/a", loadStart: loadAverage()}
	var err error
	if m.reflect, err = firstLine(ctx, e.tools.reflect, "version"); err != nil {
		return m, err
	}
	if e.hasKubectl() {
		if m.kubectl, err = firstLine(ctx, e.tools.kubectl, "version", "--client"); err != nil {
			return m, err
		}
	}
	v, err := e.clients.cs.Discovery().ServerVersion()
	if err != nil {
		return m, fmt.Errorf("server version: %w", err)
	}
	m.kubeServer = v.GitVersion
	return m, nil
}

func firstLine(ctx context.Context, path string, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, path, args...).Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", path, strings.Join(args, " "), err)
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line, nil
}

// loadAverage is the 1-minute load average: other work on the machine
// slows the wall-clock measurements down.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	load, _, _ := strings.Cut(string(b), " ")
	return load
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// row is one line of the table; a zero baseline prints as n/a.
type row struct {
	metric         string
	ours, baseline float64
	unit           string
	format         string  // of the values
	target         float64 // the ratio should be at most this; 0: no target
}

func (r row) cells() []string {
	ours := fmt.Sprintf(r.format+" %s", r.ours, r.unit)
	base, ratio, tgt := "n/a", "n/a", "-"
	if r.baseline > 0 {
		base = fmt.Sprintf(r.format+" %s", r.baseline, r.unit)
		ratio = fmt.Sprintf("%.2f", r.ours/r.baseline)
	}
	if r.target > 0 {
		tgt = fmt.Sprintf("≤ %.2f", r.target)
		if r.baseline > 0 {
			if r.ours/r.baseline <= r.target {
				tgt += " (met)"
			} else {
				tgt += " (missed)"
			}
		}
	}
	return []string{r.metric, ours, base, ratio, tgt}
}

// markdown is the report: the table, the samples behind it, the machine.
func (r results) markdown(cfg config) string {
	var b strings.Builder
	events := ""
	if r.parts[partWatch] {
		events = fmt.Sprintf(", %d live events", cfg.events)
	}
	fmt.Fprintf(&b, "## kubectl-reflect vs kubectl: %d ConfigMaps of %d B%s, median of %d runs\n\n",
		cfg.objects, cfg.size, events, cfg.repeat)
	b.WriteString("| metric | kubectl-reflect | baseline | ratio | target |\n|---|---|---|---|---|\n")
	p := r.populate
	rows := []row{{metric: fmt.Sprintf("create %d ConfigMaps (client-go, parallel; setup)", p.objects), ours: p.elapsed.Seconds(), unit: "s", format: "%.2f"}}
	if r.parts[partWatch] {
		rows = append(rows, r.watchRows()...)
	}
	if r.parts[partGet] {
		rows = append(rows, r.get.rows()...)
	}
	if r.parts[partController] {
		rows = append(rows, r.controller.rows()...)
	}
	if r.parts[partServe] {
		rows = append(rows, r.serve.rows()...)
	}
	if r.parts[partMemory] {
		rows = append(rows, r.memory.rows()...)
	}
	if r.parts[partRelist] {
		rows = append(rows, r.relist.rows()...)
	}
	for _, row := range rows {
		fmt.Fprintf(&b, "| %s |\n", strings.Join(row.cells(), " | "))
	}
	if r.parts[partWatch] {
		r.writeWatchNotes(&b)
	}
	if r.parts[partGet] {
		r.get.writeNotes(&b)
	}
	if r.parts[partController] {
		r.controller.writeNotes(&b, cfg.workers)
	}
	if r.parts[partServe] {
		r.serve.writeNotes(&b)
	}
	if r.parts[partMemory] {
		r.memory.writeNotes(&b)
	}
	if r.parts[partRelist] {
		r.relist.writeNotes(&b)
	}
	m := r.machine
	fmt.Fprintf(&b, "\nMachine: %d CPUs (%s), %s; kubectl %s; %s; kube-apiserver %s on the same machine; "+
		"1-minute load average %s before the measurements, %s after.\n",
		m.cpus, m.cpuModel, m.goVersion, m.kubectl, m.reflect, m.kubeServer, m.loadStart, m.loadEnd)
	return b.String()
}

// writeWatchNotes explains the watch rows and lists their samples.
func (r results) writeWatchNotes(b *strings.Builder) {
	b.WriteString("\nWatch rows: baselines are `kubectl get cm -o json` for the initial-state rows (kubectl pages its LIST 500 at a time), " +
		"`kubectl get cm -o name` for `-o name`, `kubectl get cm -w --watch-only --output-watch-events -o json` for live events. " +
		"kubectl-reflect's time is to its N-th printed line, kubectl's to its exit; " +
		"both omit metadata.managedFields from -o json unless --show-managed-fields, " +
		"but for kubectl's --output-watch-events, whose events keep them; " +
		"kubectl-reflect's memory is read at its N-th line, kubectl's sampled every 20 ms " +
		"(not rusage's maxrss, which starts at the benchmark's own peak RSS).\n\n")
	b.WriteString("Samples, one per run:\n\n")
	for _, cmd := range listCommands() {
		if s := r.initial.samples[cmd]; len(s) > 0 {
			fmt.Fprintf(b, "- `%s` (s): %s\n", cmd, formatSeconds(s))
		}
	}
	fmt.Fprintf(b, "- CPU per live event (ms), kubectl-reflect: %s\n", formatPerEvent(r.live.reflect, r.live.events))
	if len(r.live.kubectl) > 0 {
		fmt.Fprintf(b, "- CPU per live event (ms), kubectl: %s\n", formatPerEvent(r.live.kubectl, r.live.events))
	}
	fmt.Fprintf(b, "- live events delivered, first update to last event printed (s): kubectl-reflect %s", formatDelivered(r.live.reflect))
	if len(r.live.kubectl) > 0 {
		fmt.Fprintf(b, "; kubectl %s", formatDelivered(r.live.kubectl))
	}
	b.WriteString("\n")
	for _, w := range r.liveWarnings() {
		fmt.Fprintf(b, "- warning: %s\n", w)
	}
}

// watchRows are the rows of the watch part.
func (r results) watchRows() []row {
	med := func(cmd listCommand, f func(listSample) float64) float64 { return medianOf(r.initial.samples[cmd], f) }
	secs := func(s listSample) float64 { return s.elapsed.Seconds() }
	peak := func(s listSample) float64 { return mib(s.mem.peak()) } // not maxRSS: see maxRSS
	hwm := func(s listSample) float64 { return mib(s.mem.hwm) }
	rss := func(s listSample) float64 { return mib(s.mem.rss) }
	rows := []row{
		{metric: "time to last initial event, -o json (one LIST, the default)", ours: med(reflectJSON, secs), baseline: med(kubectlJSON, secs), unit: "s", format: "%.2f", target: watchTarget},
		{metric: "time to last initial event, -o json (--list-mode=streaming: a streaming list)", ours: med(reflectStreaming, secs), baseline: med(kubectlJSON, secs), unit: "s", format: "%.2f", target: watchTarget},
		{metric: "time to last initial event, -o json (--list-mode=paged: LIST 500 at a time)", ours: med(reflectPaged, secs), baseline: med(kubectlJSON, secs), unit: "s", format: "%.2f", target: watchTarget},
		{metric: "time to last initial event, -o json --show-managed-fields (reference: kubectl's bytes)", ours: med(reflectManaged, secs), baseline: med(kubectlJSON, secs), unit: "s", format: "%.2f"},
		{metric: "time to last initial event, -o name (reference)", ours: med(reflectName, secs), baseline: med(kubectlName, secs), unit: "s", format: "%.2f"},
	}
	cpuPerEvent := func(s liveSample) float64 { return perEvent(s.cpu, r.live.events) }
	liveHWM := func(s liveSample) float64 { return mib(s.mem.hwm) }
	cpu := row{metric: "CPU per live event, -o json", ours: medianOf(r.live.reflect, cpuPerEvent),
		baseline: medianOf(r.live.kubectl, cpuPerEvent), unit: "ms", format: "%.3f", target: watchTarget}
	mem := row{metric: "peak RSS while watching live events (VmHWM)", ours: medianOf(r.live.reflect, liveHWM),
		baseline: medianOf(r.live.kubectl, liveHWM), unit: "MiB", format: "%.1f"}
	return append(rows, cpu,
		row{metric: "peak RSS after the initial list, -o json (VmHWM; kubectl: whole run)", ours: med(reflectJSON, hwm), baseline: med(kubectlJSON, peak), unit: "MiB", format: "%.1f"},
		row{metric: "RSS at the last initial event, -o json (VmRSS)", ours: med(reflectJSON, rss), unit: "MiB", format: "%.1f"},
		mem,
	)
}

// liveWarnings notes anything odd about the live measurement.
func (r results) liveWarnings() []string {
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
	for _, s := range r.live.kubectl {
		check("kubectl", s)
	}
	return ws
}

func perEvent(cpu time.Duration, events int) float64 {
	return float64(cpu) / float64(time.Millisecond) / float64(events)
}

func mib(bytes int64) float64 { return float64(bytes) / (1 << 20) }

// medianOf is the median of f over s, 0 for none.
func medianOf[T any](s []T, f func(T) float64) float64 {
	if len(s) == 0 {
		return 0
	}
	v := make([]float64, len(s))
	for i, x := range s {
		v[i] = f(x)
	}
	return median(v)
}

func median(v []float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

func formatPerEvent(s []liveSample, events int) string {
	parts := make([]string, len(s))
	for i, x := range s {
		parts[i] = fmt.Sprintf("%.3f", perEvent(x.cpu, events))
	}
	return strings.Join(parts, ", ")
}

func formatDelivered(s []liveSample) string {
	parts := make([]string, len(s))
	for i, x := range s {
		parts[i] = fmt.Sprintf("%.2f", x.delivered.Seconds())
	}
	return strings.Join(parts, ", ")
}

func formatSeconds(s []listSample) string {
	parts := make([]string, len(s))
	for i, x := range s {
		parts[i] = fmt.Sprintf("%.2f", x.elapsed.Seconds())
	}
	return strings.Join(parts, ", ")
}
