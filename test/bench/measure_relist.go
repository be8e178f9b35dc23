//go:build linux

package main

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// relistSample is one relist into a synced store.
type relistSample struct {
	base    int64         // HeapInuse after GC before the store existed
	steady  int64         // HeapInuse after GC before the relist: the store synced, no watcher running
	peak    heapPeak      // sampled every 5 ms from starting the watcher to InitDone applied
	after   int64         // HeapInuse after GC once the relist is done and its watcher stopped
	elapsed time.Duration // from starting the watcher to InitDone applied
}

type relistResult struct {
	samples []relistSample
}

// measureRelist measures cfg.repeat relists, each into a new store.
func measureRelist(ctx context.Context, e *env) (relistResult, error) {
	var r relistResult
	c, err := newStoreClient(e.inProcessConfig(), configMaps, e.namespace)
	if err != nil {
		return r, err
	}
	for round := range e.cfg.repeat {
		profile := ""
		if round == 0 && e.cfg.memprofile != "" {
			profile = e.cfg.memprofile + ".relist"
		}
		s, err := measureOneRelist(ctx, e, c, profile)
		if err != nil {
			return r, err
		}
		r.samples = append(r.samples, s)
		e.logf("round %d/%d: relist in %s: peak HeapInuse %.1f MiB (live %.1f MiB, %d samples), steady %.1f MiB before, %.1f MiB after",
			round+1, e.cfg.repeat, s.elapsed.Round(time.Millisecond), mib(s.peak.inuse), mib(s.peak.live), s.peak.samples,
			mib(s.steady), mib(s.after))
	}
	return r, nil
}

// measureOneRelist syncs a new store with one watcher and stops it; then a
// second watcher into the same store lists again, which is a relist (Init,
// InitApply..., InitDone) of objects the store already holds. It samples the
// heap while the relist runs, and measures it once more after.
func measureOneRelist(ctx context.Context, e *env, c *kube.Client, profile string) (relistSample, error) {
	r := relistSample{base: heapInuse()}
	s := newStore(c)
	first := startWatcher(ctx, c, watch.ListWhole, s.Apply)
	err := first.waitFor(ctx, s.Synced(), e.cfg.wait)
	first.stop()
	if err != nil {
		return r, err
	}
	if n := s.Len(); n != e.cfg.objects {
		return r, fmt.Errorf("the store holds %d objects, want %d", n, e.cfg.objects)
	}
	r.steady = heapInuse()
	if profile != "" {
		if err := writeHeapProfile(profile + ".before"); err != nil {
			return r, err
		}
	}

	relisted := make(chan struct{})
	var once sync.Once
	handle := func(ctx context.Context, ev watch.Event[*object.Object]) error {
		err := s.Apply(ctx, ev)
		if ev.Type == watch.InitDone {
			once.Do(func() { close(relisted) })
		}
		return err
	}
	sampler := startHeapSampler(5 * time.Millisecond)
	start := time.Now()
	second := startWatcher(ctx, c, watch.ListWhole, handle)
	err = second.waitFor(ctx, relisted, e.cfg.wait)
	r.elapsed = time.Since(start)
	r.peak = sampler.stop()
	second.stop()
	if err != nil {
		return r, err
	}
	r.after = heapInuse()
	if profile != "" {
		if err := writeHeapProfile(profile); err != nil {
			return r, err
		}
		e.logf("wrote the heap profiles of a store before and after a relist to %s.before and %s (compare them with pprof -base)", profile, profile)
	}
	if n := s.Len(); n != e.cfg.objects {
		return r, fmt.Errorf("the store holds %d objects after the relist, want %d", n, e.cfg.objects)
	}
	runtime.KeepAlive(s)
	return r, nil
}
