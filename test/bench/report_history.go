//go:build linux

package main

import "fmt"

// Targets of the history rows (issue 31, Performance).
const (
	historyCPUTarget  = 1.10 // CPU per event of a recording daemon against one that does not record
	historyAtLimit    = 1.0  // seconds, get --at over the bench's ConfigMaps
	historySizeLimit  = 300  // bytes per revision on disk
	historyWarmTarget = 0.3  // time to serving of a warm restart against a fresh list
)

func (r historyResult) rows() []row {
	secs := func(s getSample) float64 { return s.elapsed.Seconds() }
	ms := func(v float64) float64 { return v }
	return append([]row{
		{key: "history.record.cpu", baselineName: "`serve cm`", metric: fmt.Sprintf("history: CPU per live event of `serve cm --record` vs `serve cm` (the same %s updates, counted until each daemon exited on SIGTERM: the recording daemon's until committed to its history and its stop's checkpoint of the whole state, the one it writes every ten minutes, here once per %s changes)", count(r.events), count(r.events)), ours: medianOf(r.recordCPU, ms), baseline: medianOf(r.plainCPU, ms), pairs: valuePairs(r.recordCPU, r.plainCPU), unit: "ms", format: "%.3f", target: historyCPUTarget},
		{key: "history.at", metric: fmt.Sprintf("history: `get cm -A --at RV` over %s ConfigMaps, from the history file: wall time to exit", count(r.objects)), ours: medianOf(r.at, secs), unit: "s", format: "%.2f", limit: historyAtLimit},
		{key: "history.at.live", baselineName: "`get cm -A` through the daemon", metric: "history: `get cm -A --at RV` vs `get cm -A` of the live daemon: wall time to exit (reference)", ours: medianOf(r.at, secs), baseline: medianOf(r.live, secs), pairs: samePairs(r.at, r.live, secs), unit: "s", format: "%.2f"},
		{key: "history.warm", baselineName: "`serve cm` (a fresh list)", metric: fmt.Sprintf("history: a warm restart of `serve cm --record` on %s ConfigMaps (stores from the history, the watch resumed), %d of them changed while it was down, vs a daemon that lists them: wall time from start to serving the API server's state", count(r.objects), min(warmChanges, r.objects-1)), ours: medianOf(r.warm, ms), baseline: medianOf(r.cold, ms), pairs: valuePairs(r.warm, r.cold), unit: "s", format: "%.2f", target: historyWarmTarget},
		{key: "history.blame", metric: fmt.Sprintf("history: `blame cm/NAME` of a ConfigMap edited %d times, from the history file: wall time to exit", historyEdits), ours: medianOf(r.blame, secs), unit: "s", format: "%.3f", limit: historyBlameLimit},
		{key: "history.blame.field", metric: fmt.Sprintf("history: `blame cm/NAME --field data.payload` of a ConfigMap edited %d times, from the history file: wall time to exit", historyEdits), ours: medianOf(r.blameField, secs), unit: "s", format: "%.3f", limit: historyBlameLimit},
		{key: "history.size", metric: fmt.Sprintf("history: bytes per revision of one ConfigMap edited %d times, a few letters each (the growth of the history's pages in use while a daemon records them; its stop's checkpoint not counted)", historyEdits), ours: r.perRevision, unit: "B", format: "%.0f", limit: historySizeLimit},
		{key: "history.size.file", metric: "history: likewise, the growth of the history's files, free pages included (reference)", ours: r.perRevisionFile, unit: "B", format: "%.0f"},
	}, append(blameRecordRows(r.blameRecords), r.timeline.rows()...)...)
}

// sections is the history part's table, its notes after it.
func (r historyResult) sections(cfg config) []section {
	f := func(v float64) string { return fmt.Sprintf("%.3f", v) }
	secs := func(s getSample) string { return fmt.Sprintf("%.2f", s.elapsed.Seconds()) }
	return []section{{
		title: "History: `serve --record`, `get --at`",
		about: fmt.Sprintf("A first recording daemon records the benchmark's %s ConfigMaps of %d bytes and stops (not counted; "+
			"its CPU is in the notes). Then one `serve cm` at a time, with and without `--record`, "+
			"taking turns: %s updates of the ConfigMaps, then one of a sentinel; the daemon's CPU (/proc) from before the updates "+
			"to when it has the sentinel (in its store; in its history file when it records), then of its stop on SIGTERM, to its exit "+
			"(a recording daemon writes a checkpoint of the whole state then, as it does every ten minutes with the prune; the prune, "+
			"of revisions older than the retention, has nothing to drop in a run this short). `get --at` reads the history the "+
			"recording daemon wrote, at the sentinel's resourceVersion, a new process timed to its exit, taking turns with `get` "+
			"through the daemon. The size row edits one ConfigMap %d times (four letters each, a merge patch) through a recording daemon "+
			"and divides the growth of the history's pages in use (PRAGMA page_count less freelist_count, as a reader sees them), and of its files (database, WAL, shared memory), "+
			"from the daemon serving to its having recorded the last edit (its stop, which writes a checkpoint of the whole kind, not counted), by the edits; the blame rows then time `blame` of that ConfigMap "+
			"and of its data.payload (`--field`), a new process each, from the history alone; the blame rows by size time the same of one "+
			"Deployment of 100 revisions (blametest.Record: Deployments edited in turn, scaled, their image changed, their status written) "+
			"in records of 10,000 and of 1,000,000 revisions written into files of their own (not counted). The restart row, measured right after the CPU "+
			"rounds (a watch resumes only from where the API server's watch cache still holds, 75 s of events once writes resume), starts, taking turns, "+
			"`serve cm --record` on the history the last recording daemon left (its stores from the file, its watch resumed where "+
			"the record ends; a relist would fail the run) and `serve cm`, which lists; before each start, with no daemon running, "+
			"%d ConfigMaps and then the sentinel are changed, and each daemon is timed from its start to serving the sentinel's last "+
			"change (a LIST at its resourceVersion through the daemon, every 20 ms), and so every change before it: the API server's state. The timeline rows write issue 49's record (timelinetest.Cluster3000: 24 h of 3,000 pods on 50 nodes, "+
			"their Leases and Events, ending when written; not counted) into a file of their own and time `timeline pods,leases -A "+
			"--since 24h --history-db FILE` (the kinds resolved by the API server), a new process to its exit, piped, taking turns "+
			"with the same and `--html FILE`; its peak RSS is VmHWM read every 20 ms.",
			count(r.objects), cfg.size, count(cfg.events), historyEdits, min(warmChanges, r.objects-1)),
		rows: r.rows(),
		notes: append([]string{
			fmt.Sprintf("the first recording daemon, from its start to every ConfigMap recorded (not counted): %.1f s of CPU", r.firstCPU),
			"CPU per event to the exit, `serve cm --record` (ms): " + joinf(r.recordCPU, f) + "; before its stop: " + joinf(r.recordUpdatesCPU, f) + "; the stop's CPU (s): " + joinf(r.recordStop, f),
			"CPU per event to the exit, `serve cm` (ms): " + joinf(r.plainCPU, f) + "; before its stop: " + joinf(r.plainUpdatesCPU, f) + "; the stop's CPU (s): " + joinf(r.plainStop, f),
			"`get cm -A --at RV` (s): " + joinf(r.at, secs),
			"`get cm -A` through the daemon (s): " + joinf(r.live, secs),
			"warm restart to the API server's state (s): " + joinf(r.warm, f) + "; to the line that says it serves (s): " + joinf(r.warmServing, f),
			"fresh list to the API server's state (s): " + joinf(r.cold, f) + "; to the line that says it serves (s): " + joinf(r.coldServing, f),
			"`blame cm/NAME` (s): " + joinf(r.blame, secs),
			"`blame cm/NAME --field data.payload` (s): " + joinf(r.blameField, secs),
		}, append(blameRecordNotes(r.blameRecords), r.timeline.notes()...)...),
	}}
}
