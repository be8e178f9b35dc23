//go:build linux

package main

import (
	"fmt"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/blame/blametest"
)

// blameRecordRows are the rows of blame by the record's size, each
// size's whole blame and --field.
func blameRecordRows(rs []blameRecordResult) []row {
	secs := func(s getSample) float64 { return s.elapsed.Seconds() }
	var rows []row
	for _, r := range rs {
		what := fmt.Sprintf("of one Deployment of %d revisions in a record of %s revisions (%s Deployments), from the history file: wall time to exit",
			blametest.PerObject, count(r.revisions), count(r.revisions/blametest.PerObject))
		rows = append(rows,
			row{key: r.key, metric: "history: `blame deployments.apps/NAME` " + what, ours: medianOf(r.whole, secs), unit: "s", format: "%.3f", limit: historyBlameLimit},
			row{key: r.key + ".field", metric: "history: `blame deployments.apps/NAME --field " + blametest.Field + "` " + what, ours: medianOf(r.field, secs), unit: "s", format: "%.3f", limit: historyBlameLimit},
		)
	}
	return rows
}

// blameRecordNotes are each record's size, the time it took to write,
// and the samples.
func blameRecordNotes(rs []blameRecordResult) []string {
	secs := func(s getSample) string { return fmt.Sprintf("%.3f", s.elapsed.Seconds()) }
	var notes []string
	for _, r := range rs {
		notes = append(notes, fmt.Sprintf("blame's record of %s revisions: %.1f MB, written in %.1f s (not counted); `blame` (s): %s; `blame --field` (s): %s",
			count(r.revisions), mb(r.bytes), r.written.Seconds(), joinf(r.whole, secs), joinf(r.field, secs)))
	}
	return notes
}
