//go:build linux

package main

import (
	"strings"
	"testing"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
)

// realisticSample is a realistic part's result whose figures are easy to
// check: a 3-minute window (a twentieth of an hour), 10 nodes.
func realisticSample() realisticResult {
	return realisticResult{
		shape: realisticConfig{nodes: 10, pods: 300, deployments: 6, window: 3 * time.Minute, idle: time.Minute, every: 10 * time.Second},
		churn: realisticWindow{
			elapsed:     3 * time.Minute,
			usage:       []history.Usage{{Resource: "leases.v1.coordination.k8s.io", Revisions: 10, Bytes: 50_000}, {Resource: "pods.v1.", Revisions: 1000, Bytes: 1_000_000}},
			daemonCPU:   2 * time.Second,
			kubectlCPU:  map[string]time.Duration{"pods": 3 * time.Second, "leases": time.Second},
			events:      map[string]int{"pods": 1500, "leases": 500},
			daemonPeak:  100 << 20,
			kubectlPeak: map[string]int64{"pods": 40 << 20, "leases": 30 << 20},
		},
		idle: realisticWindow{elapsed: 5 * time.Minute, usage: []history.Usage{{Resource: "leases.v1.coordination.k8s.io", Revisions: 1, Bytes: 5000}}},
	}
}

func TestRealisticRows(t *testing.T) {
	idleless, short, hundred := realisticSample(), realisticSample(), realisticSample()
	idleless.idle = realisticWindow{}
	short.idle.elapsed = time.Minute
	hundred.shape.nodes = 100
	tests := []struct {
		name string
		r    realisticResult
		key  string
		// the row's metric holds metric; its cells are ours, ratio, target, met
		metric                   string
		ours, ratio, target, met string
	}{
		{"a kind's bytes, to an hour", realisticSample(), "realistic.bytes", "pods.v1. (1,000 revisions; extrapolated to an hour from a 3m0s window)", "20.00 MB/h", "-", "reference", "-"},
		{"every kind's", realisticSample(), "realistic.bytes.total", "the six kinds together (1,010 revisions;", "21.00 MB/h", "-", "reference", "-"},
		{"peak RSS against kubectl's sum", realisticSample(), "realistic.rss", "one round", "100 MiB", "1.43x (1 round)", "reference", "-"},
		{"CPU per event, kubectl's events summed", realisticSample(), "realistic.cpu", "(2,000 events), one round", "1.000 ms", "0.50x (1 round)", "reference", "-"},
		{"idle, scaled to 100 nodes", realisticSample(), "realistic.idle", "at 10 nodes, scaled to 100 (extrapolated to an hour from a 5m0s window)", "0.60 MB/h", "-", "≤ 2.00 MB/h", "met"},
		{"idle, 100 nodes", hundred, "realistic.idle", "together, at 100 nodes (extrapolated", "0.06 MB/h", "-", "≤ 2.00 MB/h", "met"},
		{"idle, too short to judge", short, "realistic.idle", "; not judged: a window under 5m0s can miss the Leases' kept renewals", "3.00 MB/h", "-", "reference", "-"},
		{"no idle window", idleless, "realistic.idle", "scaled to 100", "not measured (-realistic-idle 0)", "-", "≤ 2.00 MB/h", "n/a"},
	}
	for _, tt := range tests {
		var found bool
		for _, r := range tt.r.rows() {
			if r.key != tt.key || (tt.key == "realistic.bytes" && !strings.Contains(r.metric, "pods")) {
				continue
			}
			found = true
			c := r.cells()
			if !strings.Contains(c[0], tt.metric) {
				t.Errorf("%s: metric %q lacks %q", tt.name, c[0], tt.metric)
			}
			if got := []string{c[1], c[4], c[5], c[6]}; got[0] != tt.ours || got[1] != tt.ratio || got[2] != tt.target || got[3] != tt.met {
				t.Errorf("%s: ours, ratio, target, met = %q, want %q", tt.name, got, []string{tt.ours, tt.ratio, tt.target, tt.met})
			}
		}
		if !found {
			t.Errorf("%s: no row %s", tt.name, tt.key)
		}
	}
}

// TestRealisticSection: the section says how events are counted, that
// kubectl watches one kind each, that rates are extrapolated and that it
// is one round; the notes give each kubectl's figures.
func TestRealisticSection(t *testing.T) {
	var b strings.Builder
	for _, s := range realisticSample().sections(config{}) {
		s.write(&b)
	}
	page := b.String()
	for _, want := range []string{
		"### Realistic: recording a cluster during rollouts",
		"kubectl refuses several kinds with -w",
		"`kubectl reflect serve pods,nodes,leases,events,deployments,replicasets --record`",
		"Events are the watch events kubectl's watchers printed in the window, summed over the kinds",
		"extrapolated to an hour from the window",
		"One round",
		"- `kubectl get leases -A -w -o json`: 500 events, 1.0 s of CPU in the window, 30 MiB peak RSS\n",
		"- `kubectl get pods -A -w -o json`: 1,500 events, 3.0 s of CPU in the window, 40 MiB peak RSS\n",
		"- idle, leases.v1.coordination.k8s.io: 1 revisions, 5,000 bytes in 5m0s\n",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the section lacks %q:\n%s", want, page)
		}
	}
}

func TestKubectlInitialRecords(t *testing.T) {
	for _, tt := range []struct{ n, want int }{{0, 0}, {1, 1}, {300, 300}, {500, 500}, {501, 2}, {3000, 6}, {3001, 7}} {
		if got := kubectlInitialRecords(tt.n); got != tt.want {
			t.Errorf("kubectlInitialRecords(%d) = %d, want %d", tt.n, got, tt.want)
		}
	}
}

// TestRealisticFlags: -realistic-small (and -quick) make the small shape
// of the flags not set; bad shapes are refused.
func TestRealisticFlags(t *testing.T) {
	small := realisticConfig{nodes: 10, pods: 300, deployments: 6, window: time.Minute, idle: 30 * time.Second, every: 10 * time.Second}
	tests := []struct {
		args    []string
		want    realisticConfig
		wantErr bool
	}{
		{nil, realisticConfig{nodes: 100, pods: 3000, deployments: 60, window: 90 * time.Second, idle: 5 * time.Minute, every: 10 * time.Second}, false},
		{[]string{"-realistic-small"}, small, false},
		{[]string{"-quick"}, small, false},
		{[]string{"-realistic-small", "-realistic-nodes", "20", "-realistic-idle", "0"}, realisticConfig{nodes: 20, pods: 300, deployments: 6, window: time.Minute, every: 10 * time.Second}, false},
		{[]string{"-realistic-pods", "5", "-realistic-deployments", "10"}, realisticConfig{}, true},
		{[]string{"-realistic-window", "0s"}, realisticConfig{}, true},
		{[]string{"-realistic-nodes", "0"}, realisticConfig{}, true},
	}
	for _, tt := range tests {
		cfg, err := parseFlags(tt.args)
		if (err != nil) != tt.wantErr {
			t.Errorf("parseFlags(%q) error = %v, want error %v", tt.args, err, tt.wantErr)
			continue
		}
		if !tt.wantErr && cfg.realistic != tt.want {
			t.Errorf("parseFlags(%q): %+v, want %+v", tt.args, cfg.realistic, tt.want)
		}
	}
}
