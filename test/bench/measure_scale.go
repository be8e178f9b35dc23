//go:build linux

package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// scaleNamespace is the scale part's namespace, grown step by step.
const scaleNamespace = "bench-scale"

// scaleKinds are the caches the scale part syncs at each size: ours and
// client-go's typed informer.
func scaleKinds() []cacheKind { return []cacheKind{cacheStore, cacheTyped} }

// scaleResult is the scale part: each cache synced cfg.repeat times at each
// of the sizes.
type scaleResult struct {
	sizes   []int
	grow    []time.Duration              // creating the ConfigMaps added at each size
	samples map[cacheKind][][]syncSample // per kind, per size, one per round
}

// measureScale grows scaleNamespace to each of cfg.scaleSizes ConfigMaps
// in turn and, at each size, syncs each of scaleKinds cfg.repeat times, in
// turns, as the memory part does, reading the resident set too.
func measureScale(ctx context.Context, e *env) (scaleResult, error) {
	r := scaleResult{sizes: e.cfg.scaleSizes, samples: map[cacheKind][][]syncSample{}}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: scaleNamespace}}
	if _, err := e.clients.cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return r, fmt.Errorf("create namespace %s: %w", scaleNamespace, err)
	}
	have := 0
	for i, n := range r.sizes {
		e.logf("scale: creating ConfigMaps %d to %d in %s", have, n-1, scaleNamespace)
		start := time.Now()
		if err := createConfigMaps(ctx, e, scaleNamespace, have, n); err != nil {
			return r, err
		}
		r.grow = append(r.grow, time.Since(start))
		e.logf("scale: %d ConfigMaps created in %s", n-have, r.grow[i].Round(time.Millisecond))
		have = n
		for round := range e.cfg.repeat {
			for _, kind := range scaleKinds() {
				if round == 0 {
					r.samples[kind] = append(r.samples[kind], nil)
				}
				s, err := measureSync(ctx, e, syncRun{kind: kind, namespace: scaleNamespace, objects: n, rss: true})
				if err != nil {
					return r, fmt.Errorf("%s, %d objects: %w", kind, n, err)
				}
				r.samples[kind][i] = append(r.samples[kind][i], s)
				e.logf("scale: %d objects, round %d/%d: %s synced in %s (%s CPU), %.0f B heap per object, RSS %.1f MiB held, %.1f MiB peak",
					n, round+1, e.cfg.repeat, kind, s.elapsed.Round(time.Millisecond), s.cpu.Round(time.Millisecond),
					s.perObject(), mib(s.rssHeld), mib(s.rssPeak))
			}
		}
	}
	return r, nil
}

// parseSizes reads -scale-sizes: ascending positive numbers.
func parseSizes(s string) ([]int, error) {
	var sizes []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-scale-sizes: %q is not a positive number", strings.TrimSpace(f))
		}
		sizes = append(sizes, n)
	}
	if len(sizes) < 2 {
		return nil, fmt.Errorf("-scale-sizes: want at least two sizes to draw a slope, got %q", s)
	}
	if !slices.IsSorted(sizes) || len(slices.Compact(slices.Clone(sizes))) != len(sizes) {
		return nil, fmt.Errorf("-scale-sizes: want strictly ascending sizes, got %q", s)
	}
	return sizes, nil
}
