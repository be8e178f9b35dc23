//go:build linux

package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// part is one measurement that -only selects. To add one: a constant here,
// its place in allParts, its case in measure, and a result type with a
// sections method (partReport) in files of its own.
type part string

const (
	// partMemory: sync time and heap per object of kubectl-reflect's store
	// and client-go's informers, in the benchmark's own process.
	partMemory part = "memory"
	// partRelist: the peak heap while a synced store takes a relist.
	partRelist part = "relist"
	// partGet: wall time of `get` to exit against `kubectl get`.
	partGet part = "get"
	// partWatch: the `watch` measurements: time to the initial state, CPU
	// per live event, RSS.
	partWatch part = "watch"
	// partController: the configmap-generator of `run-controller` against
	// the same controller written with controller-runtime.
	partController part = "controller"
	// partServe: `serve cm`: get through it, fan-out of watch clients.
	partServe part = "serve"
	// partContexts: get, serve and watch across three clusters (a fleet
	// of its own).
	partContexts part = "contexts"
	// partHistory: serve --record against serve (CPU per event), get --at
	// over every ConfigMap, bytes on disk per revision.
	partHistory part = "history"
	// partRealistic: serve --record of pods, nodes, leases, events,
	// Deployments and ReplicaSets of a kwok cluster (a control plane of its
	// own) during rollouts, against kubectl get -w of each kind.
	partRealistic part = "realistic"
	// partScale: the in-process caches at growing numbers of objects
	// (-scale-sizes) in a namespace of their own.
	partScale part = "scale"
)

// allParts are the parts in the order a run takes them. The in-process
// parts come last: a child's rusage maxrss starts at the benchmark's own
// peak RSS (Go starts children with vfork, and exec keeps the parent's
// high-water mark), so it must stay small while commands are measured.
// Scale is the very last: its objects would add to every -A command.
func allParts() []part {
	return []part{partGet, partWatch, partController, partServe, partContexts, partHistory, partRealistic, partMemory, partRelist, partScale}
}

// needsPopulate says whether the part measures the benchmark's namespace.
func (p part) needsPopulate() bool { return p != partScale && p != partContexts && p != partRealistic }

// measure runs the part.
func (p part) measure(ctx context.Context, e *env) (partReport, error) {
	switch p {
	case partGet:
		return measureGet(ctx, e)
	case partWatch:
		return measureWatch(ctx, e)
	case partController:
		return measureController(ctx, e)
	case partServe:
		return measureServe(ctx, e)
	case partContexts:
		return measureContexts(ctx, e)
	case partHistory:
		return measureHistory(ctx, e)
	case partRealistic:
		return measureRealistic(ctx, e)
	case partMemory:
		return measureMemory(ctx, e)
	case partRelist:
		return measureRelist(ctx, e)
	case partScale:
		return measureScale(ctx, e)
	}
	return nil, fmt.Errorf("unknown part %q", p)
}

// parts is a set of parts.
type parts map[part]bool

// parseParts reads -only: a comma-separated list of parts; empty is every
// part.
func parseParts(s string) (parts, error) {
	set := parts{}
	if strings.TrimSpace(s) == "" {
		for _, p := range allParts() {
			set[p] = true
		}
		return set, nil
	}
	for name := range strings.SplitSeq(s, ",") {
		p := part(strings.TrimSpace(name))
		if !slices.Contains(allParts(), p) {
			return nil, fmt.Errorf("-only: unknown part %q (want some of %s)", p, partNames())
		}
		set[p] = true
	}
	return set, nil
}

// needsPopulate says whether any of the parts measures the benchmark's
// namespace.
func (ps parts) needsPopulate() bool {
	for p := range ps {
		if p.needsPopulate() {
			return true
		}
	}
	return false
}

func partNames() string {
	names := make([]string, 0, len(allParts()))
	for _, p := range allParts() {
		names = append(names, string(p))
	}
	return strings.Join(names, ",")
}
