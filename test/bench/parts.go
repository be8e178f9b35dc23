//go:build linux

package main

import (
	"fmt"
	"slices"
	"strings"
)

// part is one measurement that -only selects.
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
)

// allParts are the parts in the order a run takes them. The in-process
// parts come last: a child's rusage maxrss starts at the benchmark's own
// peak RSS (Go starts children with vfork, and exec keeps the parent's
// high-water mark), so it must stay small while commands are measured.
func allParts() []part {
	return []part{partGet, partWatch, partController, partServe, partMemory, partRelist}
}

// parts is a set of parts.
type parts map[part]bool

// parseParts reads -only: a comma-separated list of parts; empty is all.
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

func partNames() string {
	names := make([]string, 0, len(allParts()))
	for _, p := range allParts() {
		names = append(names, string(p))
	}
	return strings.Join(names, ",")
}
