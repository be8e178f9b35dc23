//go:build linux

package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// realisticIdleLimit is issue 48's bound on an idle record: an idle
// 100-node cluster costs well under 2 MB an hour.
const realisticIdleLimit = 2.0 // MB an hour, at 100 nodes

// realisticIdleJudged is the shortest idle window judged against
// realisticIdleLimit: the interval a Lease's renewal alone is kept at, so
// that about every Lease's kept renewal falls in it once (a shorter one
// can miss them all, as test/cluster's TestIdleGrowth says).
const realisticIdleJudged = 5 * time.Minute

// perHourMB is bytes written over d, as MB (10^6 bytes) an hour.
func perHourMB(bytes int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(bytes) / 1e6 * float64(time.Hour) / float64(d)
}

// totalBytes is the bytes the window's record grew by, every resource.
func (w realisticWindow) totalBytes() (bytes, revisions int64) {
	for _, u := range w.usage {
		bytes, revisions = bytes+u.Bytes, revisions+u.Revisions
	}
	return bytes, revisions
}

// kubectlSums are the kubectl watchers' events, CPU and peak RSS, summed.
func (w realisticWindow) kubectlSums() (events int, cpu time.Duration, peak int64) {
	for kind, n := range w.events {
		events, cpu, peak = events+n, cpu+w.kubectlCPU[kind], peak+w.kubectlPeak[kind]
	}
	return events, cpu, peak
}

// windowText is how a row names the window its rate is extrapolated from.
func windowText(d time.Duration) string {
	return fmt.Sprintf("extrapolated to an hour from a %s window", d.Round(time.Second))
}

func (r realisticResult) rows() []row {
	w := r.churn
	var rows []row
	for _, u := range w.usage {
		rows = append(rows, row{key: "realistic.bytes", metric: fmt.Sprintf("realistic: the record's growth during rollouts, %s (%s revisions; %s)",
			u.Resource, count(int(u.Revisions)), windowText(w.elapsed)), ours: perHourMB(u.Bytes, w.elapsed), unit: "MB/h", format: "%.2f"})
	}
	total, revisions := w.totalBytes()
	events, kcpu, kpeak := w.kubectlSums()
	one := func(ours, base float64) []pair { return []pair{{ours: ours, baseline: base}} }
	perEv := func(cpu time.Duration) float64 { return perEvent(cpu, max(events, 1)) }
	kubectls := fmt.Sprintf("%d `kubectl get KIND -A -w -o json` (summed)", len(realisticKinds))
	rows = append(rows,
		row{key: "realistic.bytes.total", metric: fmt.Sprintf("realistic: the record's growth during rollouts, the six kinds together (%s revisions; %s)",
			count(int(revisions)), windowText(w.elapsed)), ours: perHourMB(total, w.elapsed), unit: "MB/h", format: "%.2f"},
		row{key: "realistic.rss", baselineName: kubectls, metric: "realistic: peak RSS of `serve " + strings.Join(realisticKinds, ",") + " --record` over its life, one round",
			ours: mib(w.daemonPeak), baseline: mib(kpeak), pairs: one(mib(w.daemonPeak), mib(kpeak)), unit: "MiB", format: "%.0f"},
		row{key: "realistic.cpu", baselineName: kubectls, metric: fmt.Sprintf("realistic: CPU per watch event during rollouts (%s events), one round", count(events)),
			ours: perEv(w.daemonCPU), baseline: perEv(kcpu), pairs: one(perEv(w.daemonCPU), perEv(kcpu)), unit: "ms", format: "%.3f"},
	)
	return append(rows, r.idleRow())
}

// idleRow is the idle record's growth scaled to 100 nodes, against issue
// 48's bound.
func (r realisticResult) idleRow() row {
	nodes := max(r.shape.nodes, 1)
	idle, _ := r.idle.totalBytes()
	at := "at 100 nodes"
	if nodes != 100 {
		at = fmt.Sprintf("at %d nodes, scaled to 100", nodes)
	}
	rw := row{key: "realistic.idle", metric: fmt.Sprintf("realistic: the record's growth once the rollouts completed, idle, the six kinds together, %s (%s)",
		at, windowText(r.idle.elapsed)), ours: perHourMB(idle, r.idle.elapsed) * 100 / float64(nodes), unit: "MB/h", format: "%.2f", limit: realisticIdleLimit}
	switch {
	case r.idle.elapsed == 0:
		rw.absent = "not measured (-realistic-idle 0)"
	case r.idle.elapsed < realisticIdleJudged:
		rw.limit = 0 // a reference: the window can miss every Lease's kept renewal
		rw.metric += fmt.Sprintf("; not judged: a window under %s can miss the Leases' kept renewals", realisticIdleJudged)
	}
	return rw
}

// sections is the realistic part's table, its notes after it.
func (r realisticResult) sections(cfg config) []section {
	rc := r.shape
	return []section{{
		title: "Realistic: recording a cluster during rollouts",
		about: fmt.Sprintf("A control plane of its own (etcd, kube-apiserver, kube-controller-manager with the Deployment, ReplicaSet and node controllers, "+
			"kube-scheduler, and kwok playing the kubelets of %d nodes, renewing their Leases), %s pods in %d Deployments, all running before anything is measured. "+
			"Side by side: `kubectl reflect serve %s --record` (a state directory of its own), waited for until its history holds the cluster's state, "+
			"and one `kubectl get KIND -A -w -o json` per kind, as its users run them (kubectl refuses several kinds with -w), each waited for until it printed its kind's initial list. "+
			"Then a window of %s: every %s a change, a rollout of the next Deployment (a new image), every third one a scale of the next to half as many pods again, or back, "+
			"every sixth, from the fifth, a deletion of the next (the garbage collector deletes its ReplicaSets and pods) and its creation again at once, "+
			"none waiting for the one before to complete. The record's growth is what the history counts it wrote (the written table, `serve status`'s bytes per kind: each revision's "+
			"encoded object, cells, names and numbers), extrapolated to an hour from the window; CPU is each process's from /proc over the window; peak RSS is each process's VmHWM, over its life, "+
			"read at the window's end. Events are the watch events kubectl's watchers printed in the window, summed over the kinds: the daemon watches the same kinds over the same window, "+
			"so it receives the same events, and both sides' CPU is divided by that count. One round: the window is long, and the ratios are of that round. "+
			"Then, %s after every rollout completed (their last status writes), an idle window of %s; its growth is scaled to 100 nodes (everything scaled, what does not grow with nodes too), and judged against issue 48's bound for an idle 100-node cluster "+
			"(there for the default record of every kind; here the six kinds) when the window is %s or more, the interval a Lease's renewal alone is kept at.",
			rc.nodes, count(rc.pods), rc.deployments, strings.Join(realisticKinds, ","), rc.window, rc.every, realisticSettle, rc.idle, realisticIdleJudged),
		rows:  r.rows(),
		notes: r.notes(),
	}}
}

func (r realisticResult) notes() []string {
	w := r.churn
	notes := []string{
		fmt.Sprintf("setup (not counted): the cluster started in %.0f s, its pods ran %.0f s after their Deployments were created; the window's changes: rollouts %d, scales %d, deletions %d (each with its creation again)",
			r.start.Seconds(), r.make.Seconds(), r.changes.rollouts, r.changes.scales, r.changes.deletions),
		fmt.Sprintf("the daemon: %.1f s of CPU in the window, %.0f MiB peak RSS", w.daemonCPU.Seconds(), mib(w.daemonPeak)),
	}
	for _, kind := range slices.Sorted(maps.Keys(w.events)) {
		notes = append(notes, fmt.Sprintf("`kubectl get %s -A -w -o json`: %s events, %.1f s of CPU in the window, %.0f MiB peak RSS",
			kind, count(w.events[kind]), w.kubectlCPU[kind].Seconds(), mib(w.kubectlPeak[kind])))
	}
	for _, u := range r.idle.usage {
		notes = append(notes, fmt.Sprintf("idle, %s: %s revisions, %s bytes in %s", u.Resource, count(int(u.Revisions)), count(int(u.Bytes)), r.idle.elapsed.Round(time.Second)))
	}
	return notes
}
