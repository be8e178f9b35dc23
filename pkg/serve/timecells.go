package serve

import (
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/duration"
)

// Time cells. The API server's printers write some cells as the time since
// a timestamp of the object, computed when they print: every Age, and a few
// columns of built-in kinds (an Event's Last Seen, a running Job's
// Duration, ...). A cached cell is as old as the object's last change, so a
// Table answer computes these again from the object, at the time of the
// answer, as the printers would (k8s.io/kubernetes/pkg/printers/internalversion).
// Date columns of custom resources are not among them: their cells come
// from the CRD's JSONPaths, which are not kept.

// timeCell computes one cell of row at now; ok is false to keep the cached
// cell.
type timeCell func(row timedRow, now time.Time) (value string, ok bool)

// timedRow is what a timeCell reads: an object's JSON, its metadata (read
// once per row: the object's other members can be long to skip), and its
// cells as cached.
type timedRow struct {
	obj   []byte
	meta  gjson.Result
	cells []byte
	path  string // the cell's index in cells, as a gjson path
}

// cached is the cell as cached.
func (r timedRow) cached() gjson.Result { return gjson.GetBytes(r.cells, r.path) }

// timeCells are the columns of built-in kinds, by the name the printers
// give them, other than Age, whose cells are times since a timestamp.
var timeCells = map[schema.GroupResource]map[string]timeCell{
	{Resource: "events"}: {
		"Last Seen":  eventTime("lastTimestamp", "firstTimestamp", true),
		"First Seen": eventTime("", "firstTimestamp", false),
	},
	{Group: "events.k8s.io", Resource: "events"}: {
		"Last Seen":  eventTime("deprecatedLastTimestamp", "deprecatedFirstTimestamp", true),
		"First Seen": eventTime("", "deprecatedFirstTimestamp", false),
	},
	{Group: "batch", Resource: "jobs"}:     {"Duration": jobDuration},
	{Group: "batch", Resource: "cronjobs"}: {"Last Schedule": sinceOr("status.lastScheduleTime", "<none>")},
	{Resource: "pods"}:                     {"Restarts": podRestarts},
}

// ageCell is the Age of any object: the time since its creation.
func ageCell(row timedRow, now time.Time) (string, bool) {
	return since(row.meta.Get("creationTimestamp"), now), true
}

// since is the printers' translateTimestampSince: the time from ts to now,
// "<unknown>" without ts.
func since(ts gjson.Result, now time.Time) string {
	t, err := time.Parse(time.RFC3339, ts.Str) // with a fraction too (MicroTime)
	if ts.Str == "" || err != nil {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(t))
}

// sinceOr is the time since the timestamp at path, or none without one.
func sinceOr(path, none string) timeCell {
	return func(row timedRow, now time.Time) (string, bool) {
		if ts := gjson.GetBytes(row.obj, path); ts.Str != "" {
			return since(ts, now), true
		}
		return none, true
	}
}

// eventTime is an Event's Last Seen (last set) or First Seen: the time since
// the first timestamp, or eventTime without one; Last Seen is the time since
// the last timestamp, or the series' last observation, or First Seen.
func eventTime(lastPath, firstPath string, last bool) timeCell {
	return func(row timedRow, now time.Time) (string, bool) {
		firstTS := gjson.GetBytes(row.obj, firstPath)
		if firstTS.Str == "" {
			firstTS = gjson.GetBytes(row.obj, "eventTime")
		}
		first := since(firstTS, now)
		if !last {
			return first, true
		}
		seen := first
		if ts := gjson.GetBytes(row.obj, lastPath); ts.Str != "" {
			seen = since(ts, now)
		}
		if series := gjson.GetBytes(row.obj, "series"); series.IsObject() {
			seen = since(series.Get("lastObservedTime"), now)
		}
		return seen, true
	}
}

// jobDuration is a Job's Duration: from its start to its completion, or to
// now while it runs; empty before it starts.
func jobDuration(row timedRow, now time.Time) (string, bool) {
	status := gjson.GetBytes(row.obj, "status")
	start, err := time.Parse(time.RFC3339, status.Get("startTime").Str)
	if err != nil {
		return "", true
	}
	end := now
	if done := status.Get("completionTime").Str; done != "" {
		if end, err = time.Parse(time.RFC3339, done); err != nil {
			return "", false
		}
	}
	return duration.HumanDuration(end.Sub(start)), true
}

// podRestarts is a Pod's Restarts, "N (T ago)" when a container restarted:
// T is computed again from the latest restart of the containers the
// printer counts; N is kept.
func podRestarts(row timedRow, now time.Time) (string, bool) {
	n, _, ok := strings.Cut(row.cached().Str, " (")
	if !ok {
		return "", false // no restart, or none with a time: nothing changes with time
	}
	last, ok := lastRestart(gjson.ParseBytes(row.obj))
	if !ok {
		return "", false
	}
	return n + " (" + duration.HumanDuration(now.Sub(last)) + " ago)", true
}

// lastRestart is the time of a Pod's latest container restart as the
// printer finds it: among the init containers up to the first one not done,
// or, once the Pod is initialized, among its sidecars (restartable init
// containers) and its containers.
func lastRestart(pod gjson.Result) (time.Time, bool) {
	restartable := map[string]bool{}
	for _, c := range pod.Get("spec.initContainers").Array() {
		restartable[c.Get("name").Str] = c.Get("restartPolicy").Str == "Always"
	}
	var all, sidecars time.Time
	initializing := false
	for _, c := range pod.Get("status.initContainerStatuses").Array() {
		t := finishedAt(c)
		all = later(all, t)
		if restartable[c.Get("name").Str] {
			sidecars = later(sidecars, t)
		}
		state := c.Get("state")
		switch {
		case state.Get("terminated").Exists() && state.Get("terminated.exitCode").Int() == 0:
			continue
		case restartable[c.Get("name").Str] && c.Get("started").Bool():
			continue
		}
		initializing = true
		break
	}
	last := all
	if !initializing || podInitialized(pod) {
		last = sidecars
		for _, c := range pod.Get("status.containerStatuses").Array() {
			last = later(last, finishedAt(c))
		}
	}
	return last, !last.IsZero()
}

// finishedAt is when a container's previous run ended, zero if unknown.
func finishedAt(status gjson.Result) time.Time {
	t, _ := time.Parse(time.RFC3339, status.Get("lastState.terminated.finishedAt").Str)
	return t
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// podInitialized says whether a Pod's Initialized condition is True.
func podInitialized(pod gjson.Result) bool {
	for _, c := range pod.Get("status.conditions").Array() {
		if c.Get("type").Str == "Initialized" {
			return c.Get("status").Str == "True"
		}
	}
	return false
}

// timeColumn is a column whose cells an encoder computes again.
type timeColumn struct {
	index int
	path  string // the cell's index as an sjson path
	cell  timeCell
}

// timeColumns are the columns of res among columns whose cells are times.
func timeColumns(res schema.GroupResource, names []string) []timeColumn {
	var out []timeColumn
	for i, name := range names {
		cell := timeCells[res][name]
		if name == "Age" {
			cell = ageCell
		}
		if cell != nil {
			out = append(out, timeColumn{index: i, path: strconv.Itoa(i), cell: cell})
		}
	}
	return out
}
