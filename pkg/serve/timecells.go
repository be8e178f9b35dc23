package serve

import (
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/duration"
)

// Time cells. The API server's printers write some cells as the time since
// a timestamp of the object, computed when they print: every Age, and a few
// columns of built-in kinds (an Event's Last Seen, a running Job's
// Duration, ...). A cached cell is as old as the object's last change, so a
// Table answer computes these again from the object, at the time of the
// answer, as the printers would (k8s.io/kubernetes/pkg/printers/internalversion).
// A custom resource's date columns are too, when the daemon read its
// definition (Resource.DateColumns) and the column's JSONPath is a simple
// one (fields and indexes: .status.startTime, .status.runs[0].at); those
// with filters or wildcards keep their cells as cached.

// timeCell computes one cell of row at now; ok is false to keep the cached
// cell.
type timeCell func(row timedRow, now time.Time) (value string, ok bool)

// timedRow is what a timeCell reads: an object's JSON, its metadata (read
// once per row when the row needs it whole: the object's other members
// can be long to skip; else not read), and its cells as cached.
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
	if !row.meta.Exists() { // not read: look up to the field only
		return since(gjson.GetBytes(row.obj, "metadata.creationTimestamp"), now), true
	}
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

// timeColumns are the columns of res among columns whose cells are times;
// dates are a custom resource's date columns, by name (their JSONPaths).
func timeColumns(res schema.GroupResource, names []string, dates map[string]string) []timeColumn {
	var out []timeColumn
	for i, name := range names {
		cell := timeCells[res][name]
		if path, ok := dates[name]; ok {
			cell = dateCell(path)
		}
		if name == "Age" && cell == nil {
			cell = ageCell
		}
		if cell != nil {
			out = append(out, timeColumn{index: i, path: strconv.Itoa(i), cell: cell})
		}
	}
	return out
}

// dateCell is the cell of a custom resource's date column, whose JSONPath
// is path, as the API server's printer of custom resources writes it
// (apiextensions-apiserver's tableconvertor): the time since the
// timestamp the path reaches. A value that is not a string, or not a time,
// keeps the cell as cached (null, or "<invalid>": the same object gave
// it). nil when path is not a simple one.
func dateCell(path string) timeCell {
	at, ok := columnPath(path)
	if !ok {
		return nil
	}
	return func(row timedRow, now time.Time) (string, bool) {
		v := gjson.GetBytes(row.obj, at)
		if v.Type != gjson.String {
			return "", false
		}
		if v.Str == "" {
			return "<unknown>", true // a zero time
		}
		t, err := time.Parse(time.RFC3339, v.Str)
		if err != nil {
			return "", false
		}
		return duration.HumanDuration(now.Sub(t)), true
	}
}

// columnPath is a printer column's JSONPath as a gjson path, if it is a
// simple one: fields and indexes (.a.b[0].c); ok is false for any other
// (filters, wildcards, quoted names).
func columnPath(jsonPath string) (path string, ok bool) {
	rest, ok := strings.CutPrefix(jsonPath, ".")
	if !ok || rest == "" || strings.ContainsAny(rest, "*?@()'\"\\{}$ `") {
		return "", false
	}
	var parts []string
	for _, seg := range strings.Split(rest, ".") {
		name, index, _ := strings.Cut(seg, "[")
		if name == "" || strings.Contains(name, "]") {
			return "", false
		}
		parts = append(parts, gjson.Escape(name))
		for index != "" {
			n, after, closed := strings.Cut(index, "]")
			if !closed || n == "" || strings.Trim(n, "0123456789") != "" {
				return "", false
			}
			parts = append(parts, n)
			if index, ok = strings.CutPrefix(after, "["); !ok && after != "" {
				return "", false
			}
		}
	}
	return strings.Join(parts, "."), true
}

// CellsAt returns a function that returns an object's printer cells as
// the API server would have printed them at now: its cells with the time
// cells of res's columns (every Age, and those of timeCells) computed at
// now. get --at prints a recorded object so, as get printed it then. The
// function may be called on several goroutines at once.
func CellsAt(res schema.GroupResource, columns []object.Column, now time.Time) func(*object.Object) []byte {
	names := make([]string, len(columns))
	for i, c := range columns {
		names[i] = c.Name
	}
	times := timeColumns(res, names, nil)
	return func(o *object.Object) []byte {
		return cellsAt(times, o, o.JSON(), gjson.Result{}, now) // the metadata read only as far as needed
	}
}
