//go:build linux

package main

import "fmt"

// mb is bytes in MB (10^6 bytes), issue 49's unit.
func mb(bytes int64) float64 { return float64(bytes) / 1e6 }

// rows are the timeline's rows: wall time and peak RSS, piped and --html.
func (t timelineResult) rows() []row {
	secs := func(s getSample) float64 { return s.elapsed.Seconds() }
	hwm := func(s getSample) float64 { return mb(s.hwm) }
	what := fmt.Sprintf("`timeline pods,leases -A --since 24h` of 24 h of a 3,000-pod cluster (%s revisions), from the history file", count(t.revisions))
	return []row{
		{key: "history.timeline", metric: "history: " + what + ", piped (the plain text: the first screen's work): wall time to exit", ours: medianOf(t.plain, secs), unit: "s", format: "%.2f", limit: timelineLimit},
		{key: "history.timeline.rss", metric: "history: `timeline --since 24h` of that record, piped: peak RSS (VmHWM)", ours: medianOf(t.plain, hwm), unit: "MB", format: "%.0f", limit: timelineRSSLimit},
		{key: "history.timeline.html", metric: "history: `timeline --since 24h --html FILE` of that record: wall time to exit (the file's size in the notes)", ours: medianOf(t.html, secs), unit: "s", format: "%.2f", limit: timelineHTMLLimit, absent: t.noHTML},
		{key: "history.timeline.html.rss", metric: "history: `timeline --since 24h --html FILE` of that record: peak RSS (VmHWM)", ours: medianOf(t.html, hwm), unit: "MB", format: "%.0f", limit: timelineRSSLimit, absent: t.noHTML},
	}
}

// notes are the timeline's samples and the HTML file's size.
func (t timelineResult) notes() []string {
	secs := func(s getSample) string { return fmt.Sprintf("%.2f", s.elapsed.Seconds()) }
	rss := func(s getSample) string { return fmt.Sprintf("%.0f", mb(s.hwm)) }
	size := func(n int64) string { return fmt.Sprintf("%.1f", mb(n)) }
	notes := []string{
		"`timeline --since 24h`, piped (s): " + joinf(t.plain, secs),
		"`timeline --since 24h`, piped, peak RSS (MB): " + joinf(t.plain, rss),
	}
	if t.noHTML != "" {
		return append(notes, "`timeline --html`: "+t.noHTML+" (the binary has no --html)")
	}
	return append(notes,
		"`timeline --html FILE` (s): "+joinf(t.html, secs),
		"`timeline --html FILE`, peak RSS (MB): "+joinf(t.html, rss),
		"the HTML file's size (MB): "+joinf(t.htmlBytes, size))
}
