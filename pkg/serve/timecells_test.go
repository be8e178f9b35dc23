package serve

import (
	"testing"
	"time"

	"github.com/tidwall/gjson"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestTimeCells: the cells the API server's printers compute from the time
// of the answer are computed again, as they would be, from the object (the
// printers' cases, k8s.io/kubernetes/pkg/printers/internalversion).
func TestTimeCells(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) string { return `"` + now.Add(-d).Format(time.RFC3339) + `"` }
	micro := func(d time.Duration) string {
		return `"` + now.Add(-d).Format("2006-01-02T15:04:05.000000Z07:00") + `"`
	}
	events, newEvents := schema.GroupResource{Resource: "events"}, schema.GroupResource{Group: "events.k8s.io", Resource: "events"}
	jobs, cronJobs := schema.GroupResource{Group: "batch", Resource: "jobs"}, schema.GroupResource{Group: "batch", Resource: "cronjobs"}
	pods := schema.GroupResource{Resource: "pods"}
	tests := []struct {
		name   string
		res    schema.GroupResource
		column string
		obj    string
		cell   string // as cached
		want   string // "" with keep
		keep   bool
	}{
		{"age", schema.GroupResource{Resource: "configmaps"}, "Age", `{"metadata":{"creationTimestamp":` + ago(90*time.Minute) + `}}`, `"1s"`, "90m", false},
		{"age without a timestamp", schema.GroupResource{Group: "example.com", Resource: "widgets"}, "Age", `{"metadata":{}}`, `"1s"`, "<unknown>", false},
		{"event: last timestamp", events, "Last Seen", `{"lastTimestamp":` + ago(5*time.Minute) + `,"firstTimestamp":` + ago(time.Hour) + `}`, `"0s"`, "5m", false},
		{"event: first timestamp without a last", events, "Last Seen", `{"lastTimestamp":null,"firstTimestamp":` + ago(3*time.Hour) + `}`, `"0s"`, "3h", false},
		{"event: eventTime without either", events, "Last Seen", `{"eventTime":` + micro(42*time.Second) + `}`, `"0s"`, "42s", false},
		{"event: a series' last observation", events, "Last Seen", `{"lastTimestamp":` + ago(time.Hour) + `,"series":{"count":3,"lastObservedTime":` + micro(7*time.Second) + `}}`, `"0s"`, "7s", false},
		{"event: nothing", events, "Last Seen", `{}`, `"0s"`, "<unknown>", false},
		{"event: first seen", events, "First Seen", `{"lastTimestamp":` + ago(time.Minute) + `,"firstTimestamp":` + ago(26*time.Hour) + `}`, `"0s"`, "26h", false},
		{"events.k8s.io: deprecated timestamps", newEvents, "Last Seen", `{"deprecatedLastTimestamp":` + ago(2*time.Minute) + `,"deprecatedFirstTimestamp":` + ago(time.Hour) + `}`, `"0s"`, "2m", false},
		{"events.k8s.io: eventTime", newEvents, "First Seen", `{"eventTime":` + micro(10*time.Second) + `}`, `"0s"`, "10s", false},
		{"job running", jobs, "Duration", `{"status":{"startTime":` + ago(150*time.Second) + `}}`, `"1s"`, "2m30s", false},
		{"job complete", jobs, "Duration", `{"status":{"startTime":` + ago(time.Hour) + `,"completionTime":` + ago(50*time.Minute) + `}}`, `"10m"`, "10m", false},
		{"job not started", jobs, "Duration", `{"status":{}}`, `""`, "", false},
		{"cronjob scheduled", cronJobs, "Last Schedule", `{"status":{"lastScheduleTime":` + ago(4*time.Minute) + `}}`, `"0s"`, "4m", false},
		{"cronjob never scheduled", cronJobs, "Last Schedule", `{"status":{}}`, `"<none>"`, "<none>", false},
		{"pod without restarts", pods, "Restarts", `{"status":{"containerStatuses":[{"restartCount":0}]}}`, `"0"`, "", true},
		{"pod restarted", pods, "Restarts", `{"status":{"conditions":[{"type":"Initialized","status":"True"}],"containerStatuses":[` +
			`{"name":"a","restartCount":2,"lastState":{"terminated":{"finishedAt":` + ago(20*time.Minute) + `}}},` +
			`{"name":"b","restartCount":1,"lastState":{"terminated":{"finishedAt":` + ago(3*time.Minute) + `}}}]}}`, `"3 (0s ago)"`, "3 (3m ago)", false},
		{"pod: a sidecar restarted", pods, "Restarts", `{"spec":{"initContainers":[{"name":"s","restartPolicy":"Always"}]},"status":{` +
			`"initContainerStatuses":[{"name":"s","started":true,"restartCount":1,"lastState":{"terminated":{"finishedAt":` + ago(8*time.Minute) + `}}}],` +
			`"containerStatuses":[{"name":"a","restartCount":0}]}}`, `"1 (0s ago)"`, "1 (8m ago)", false},
		{"pod initializing: its init containers", pods, "Restarts", `{"spec":{"initContainers":[{"name":"i"}]},"status":{` +
			`"conditions":[{"type":"Initialized","status":"False"}],` +
			`"initContainerStatuses":[{"name":"i","restartCount":4,"state":{"waiting":{"reason":"CrashLoopBackOff"}},"lastState":{"terminated":{"finishedAt":` + ago(time.Minute) + `}}}],` +
			`"containerStatuses":[{"name":"a","restartCount":1,"lastState":{"terminated":{"finishedAt":` + ago(10*time.Second) + `}}}]}}`, `"4 (0s ago)"`, "4 (60s ago)", false},
		{"pod: a restart count without a time", pods, "Restarts", `{"status":{"containerStatuses":[{"restartCount":2}]}}`, `"2"`, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cols := timeColumns(tt.res, []string{"Name", tt.column}, nil)
			if len(cols) != 1 || cols[0].index != 1 {
				t.Fatalf("timeColumns = %+v, want column 1", cols)
			}
			row := timedRow{obj: []byte(tt.obj), meta: gjson.Get(tt.obj, "metadata"), cells: []byte(`["n",` + tt.cell + `]`), path: "1"}
			got, ok := cols[0].cell(row, now)
			if ok == tt.keep || ok && got != tt.want {
				t.Errorf("cell = %q, %v; want %q (keep the cached one: %v)", got, ok, tt.want, tt.keep)
			}
		})
	}
}

// TestTimeColumns: only the columns that are times are computed again.
func TestTimeColumns(t *testing.T) {
	cols := timeColumns(schema.GroupResource{Resource: "events"}, []string{"Last Seen", "Type", "Reason", "Object", "Message", "First Seen", "Age"}, nil)
	var got []int
	for _, c := range cols {
		got = append(got, c.index)
	}
	if len(got) != 3 || got[0] != 0 || got[1] != 5 || got[2] != 6 {
		t.Errorf("columns %v, want 0, 5, 6", got)
	}
	if cols := timeColumns(schema.GroupResource{Group: "example.com", Resource: "events"}, []string{"Last Seen"}, nil); len(cols) != 0 {
		t.Errorf("another group's events: %+v, want none", cols)
	}
}

// TestDateColumns: a custom resource's date columns with simple JSONPaths
// are computed again as its printer computes them (apiextensions-apiserver's
// tableconvertor); others keep their cells.
func TestDateColumns(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	widgets := schema.GroupResource{Group: "example.com", Resource: "widgets"}
	dates := map[string]string{
		"Started": ".status.runs[0].at",
		"Ready":   `.status.conditions[?(@.type=="Ready")].lastTransitionTime`,
		"Age":     ".metadata.creationTimestamp",
	}
	cols := timeColumns(widgets, []string{"Name", "Started", "Ready", "Age"}, dates)
	if len(cols) != 2 || cols[0].index != 1 || cols[1].index != 3 {
		t.Fatalf("timeColumns = %+v, want columns 1 and 3", cols)
	}
	for _, tt := range []struct {
		name, obj, want string
		keep            bool
	}{
		{"a time", `{"status":{"runs":[{"at":"` + now.Add(-3*time.Minute).Format(time.RFC3339) + `"}]}}`, "3m", false},
		{"with a fraction", `{"status":{"runs":[{"at":"` + now.Add(-90*time.Second).Format(time.RFC3339Nano) + `"}]}}`, "90s", false},
		{"none", `{"status":{}}`, "", true},
		{"not a string", `{"status":{"runs":[{"at":5}]}}`, "", true},
		{"not a time", `{"status":{"runs":[{"at":"soon"}]}}`, "", true},
		{"empty", `{"status":{"runs":[{"at":""}]}}`, "<unknown>", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := cols[0].cell(timedRow{obj: []byte(tt.obj)}, now)
			if ok == tt.keep || ok && got != tt.want {
				t.Errorf("cell = %q, %v; want %q (keep the cached one: %v)", got, ok, tt.want, tt.keep)
			}
		})
	}
}

// TestColumnPath: simple JSONPaths read as gjson paths; the others not.
func TestColumnPath(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		ok       bool
	}{
		{".status.startTime", "status.startTime", true},
		{".status.runs[0].at", "status.runs.0.at", true},
		{".a[1][2]", "a.1.2", true},
		{".metadata.annotations.example\\.com/at", "", false},
		{".weird-name_1.x", "weird-name_1.x", true},
		{".a|b", `a\|b`, true},
		{"status.startTime", "", false},
		{".", "", false},
		{".a..b", "", false},
		{".a[]", "", false},
		{".a[-1]", "", false},
		{".a[0]b", "", false},
		{".a]", "", false},
		{".a[*].b", "", false},
		{`.a[?(@.type=="Ready")].b`, "", false},
	} {
		got, ok := columnPath(tt.in)
		if ok != tt.ok || got != tt.want {
			t.Errorf("columnPath(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
