//go:build linux

package main

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestLineTimes(t *testing.T) {
	l := newLineTimes()
	write := func(s string) {
		if _, err := l.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	write("bench-000003\nEVENT   NAMESPACE   NAME          DATA   AGE\nADDED   bench       bench-000000   1      5s\n")
	reached := l.arm(func(name string) bool { return strings.HasPrefix(name, "bench-") && name != "bench-000000" }, 2)
	write("MODIFIED  bench       bench-000001   2  ") // a row split over two writes
	if isClosed(reached) {
		t.Fatal("reached before any tracked row ended")
	}
	write("    5s\nMODIFIED bench       bench-000000   2      5s\nADDED  kube-system   coredns   1   5s\n")
	write("MODIFIED bench       bench-000001   2      5s\n") // seen already: its first time stays
	first := l.times()["bench-000001"]
	write("\nMODIFIED bench bench-000002 2 5s\n")
	if !isClosed(reached) {
		t.Fatal("not reached after two tracked names")
	}
	got := l.times()
	if names := slices.Sorted(func(yield func(string) bool) {
		for k := range got {
			if !yield(k) {
				return
			}
		}
	}); !slices.Equal(names, []string{"bench-000001", "bench-000002"}) {
		t.Errorf("tracked %v, want bench-000001 and bench-000002", names)
	}
	if !got["bench-000001"].Equal(first) {
		t.Errorf("bench-000001 first seen at %v, then %v", first, got["bench-000001"])
	}
	if n := l.count(); n != 9 {
		t.Errorf("counted %d lines, want 9", n)
	}
}

func TestLineTimesArmNone(t *testing.T) {
	if !isClosed(newLineTimes().arm(func(string) bool { return true }, 0)) {
		t.Error("arm for no row is not reached at once")
	}
}

func TestNameColumn(t *testing.T) {
	tests := []struct {
		header string
		want   int
	}{
		{"NAMESPACE   NAME   DATA   AGE", 1},
		{"EVENT   NAMESPACE   NAME   DATA   AGE", 2},
		{"NAME   DATA   AGE", 0},
		{"bench-000001", -1},
		{"", -1},
	}
	for _, tt := range tests {
		if got := nameColumn([]byte(tt.header)); got != tt.want {
			t.Errorf("nameColumn(%q) = %d, want %d", tt.header, got, tt.want)
		}
	}
	if got := rowField([]byte("a b"), 2); got != "" {
		t.Errorf("rowField of a short row = %q, want none", got)
	}
}

func TestEventLags(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	sent := map[string]time.Time{"a": at(0), "b": at(4)}
	returned := map[string]time.Time{"a": at(3), "b": at(10)}
	seen := []map[string]time.Time{
		{"a": at(5), "b": at(12), "sentinel": at(1)}, // a name never updated is no lag
		{"a": at(30), "b": at(8)},                    // b before its call returned: early, its lag from the send kept
	}
	lags := eventLags(sent, seen)
	want := []time.Duration{4 * time.Millisecond, 5 * time.Millisecond, 8 * time.Millisecond, 30 * time.Millisecond}
	if !slices.Equal(lags, want) {
		t.Errorf("eventLags = %v; want %v (from the send, none clamped)", lags, want)
	}
	if early := earlyRows(returned, seen); early != 1 {
		t.Errorf("earlyRows = %d, want 1", early)
	}
}

func TestSumMetric(t *testing.T) {
	const text = `# HELP apiserver_longrunning_requests [STABLE] Gauge of all active long-running apiserver requests.
# TYPE apiserver_longrunning_requests gauge
apiserver_longrunning_requests{component="apiserver",group="",resource="configmaps",scope="cluster",subresource="",verb="WATCH",version="v1"} 1
apiserver_longrunning_requests{component="apiserver",group="",resource="configmaps",scope="namespace",subresource="",verb="WATCH",version="v1"} 2
apiserver_longrunning_requests{component="apiserver",group="",resource="secrets",scope="cluster",subresource="",verb="WATCH",version="v1"} 7
# HELP apiserver_request_total [STABLE] Counter of apiserver requests.
# TYPE apiserver_request_total counter
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="configmaps",scope="cluster",subresource="",verb="LIST",version="v1"} 4
apiserver_request_total{code="410",component="apiserver",dry_run="",group="",resource="configmaps",scope="namespace",subresource="",verb="LIST",version="v1"} 1
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="configmaps",scope="namespace",subresource="",verb="GET",version="v1"} 9
`
	tests := []struct {
		name   string
		metric string
		labels map[string]string
		want   float64
	}{
		{"gauge over scopes", "apiserver_longrunning_requests", map[string]string{"verb": "WATCH", "resource": "configmaps"}, 3},
		{"counter over codes", "apiserver_request_total", map[string]string{"verb": "LIST", "resource": "configmaps"}, 5},
		{"no matching sample", "apiserver_longrunning_requests", map[string]string{"verb": "WATCH", "resource": "pods"}, 0},
		{"a label no sample has", "apiserver_request_total", map[string]string{"nope": "x"}, 0},
		{"no such metric", "nope_total", nil, 0},
	}
	for _, tt := range tests {
		got, err := sumMetric(strings.NewReader(text), tt.metric, tt.labels)
		if err != nil || got != tt.want {
			t.Errorf("%s: sumMetric = %v, %v; want %v", tt.name, got, err, tt.want)
		}
	}
	if _, err := sumMetric(strings.NewReader("bad{ 1\n"), "bad", nil); err == nil {
		t.Error("sumMetric of malformed text: no error")
	}
}

func TestUpdateCallsRate(t *testing.T) {
	t0 := time.Unix(1000, 0)
	u := &updateCalls{
		sent:     map[string]time.Time{"a": t0, "b": t0.Add(time.Second)},
		returned: map[string]time.Time{"a": t0.Add(time.Second), "b": t0.Add(2 * time.Second)},
	}
	if got := u.rate(); got != 1 {
		t.Errorf("rate of 2 updates over 2s = %v, want 1", got)
	}
	if got := (&updateCalls{}).rate(); got != 0 {
		t.Errorf("rate of none = %v, want 0", got)
	}
}

func TestServedKubeconfig(t *testing.T) {
	tests := []struct {
		stderr, want string
		ok           bool
	}{
		{"Serving configmaps, namespaces read-only at https://127.0.0.1:1\nkubeconfig: /run/x/serve/abc.kubeconfig\n", "/run/x/serve/abc.kubeconfig", true},
		{"Serving configmaps read-only at https://127.0.0.1:1\nkubeconfig: /run/x/ser", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		if got, ok := servedKubeconfig(tt.stderr); got != tt.want || ok != tt.ok {
			t.Errorf("servedKubeconfig(%q) = %q, %v; want %q, %v", tt.stderr, got, ok, tt.want, tt.ok)
		}
	}
}
