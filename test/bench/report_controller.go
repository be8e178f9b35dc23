//go:build linux

package main

import (
	"fmt"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
)

// Targets of the controller rows (issue 9, section 5).
const (
	generateTarget   = 1.0                   // time to all ConfigMaps against controller-runtime
	controllerTarget = 0.5                   // CPU and peak RSS against controller-runtime
	latencyP99Limit  = 50 * time.Millisecond // one spec change to its ConfigMap, absolute
)

func (r controllerResult) sections(cfg config) []section {
	med := func(s []controllerSample, f func(controllerSample) float64) float64 { return medianOf(s, f) }
	secs := func(s controllerSample) float64 { return s.generate.Seconds() }
	cpu := func(s controllerSample) float64 { return s.cpu.Seconds() }
	hwm := func(s controllerSample) float64 { return mib(s.hwm) }
	anon := func(s controllerSample) float64 { return mib(s.anon) }
	p50 := func(s controllerSample) float64 { return ms(percentile(s.latency, 50)) }
	p99 := func(s controllerSample) float64 { return ms(percentile(s.latency, 99)) }
	n := r.generators
	const cr = "controller-runtime v0.25.2 at its defaults"
	const advised = "controller-runtime v0.25.2 as its docs advise (ConfigMaps cached as metadata only, managedFields stripped)"
	sec := section{
		title: fmt.Sprintf("`run-controller configmap-generator`: %s ConfigMapGenerators", count(n)),
		about: fmt.Sprintf("The baseline is the same ConfigMapGenerator controller written with controller-runtime v0.25.2 "+
			"(test/bench/crcmg), configured as its docs advise for the job (`-advised`: `Owns` with builder.OnlyMetadata, the ConfigMaps "+
			"watched, cached and read as metav1.PartialObjectMetadata, an annotation with a hash of the last apply to skip an apply that "+
			"would change nothing, and cache.TransformStripManagedFields as the cache's DefaultTransform), and at its defaults (every "+
			"ConfigMap cached typed, managedFields kept; the rows so labelled); ours is `kubectl-reflect run-controller configmap-generator -A`. "+
			"All run over all namespaces (so they also cache the benchmark's other ConfigMaps: crcmg as its configuration says, "+
			"ours as metadata only), with %d reconciles at once "+
			"and no client-side rate limit, one after the other on a fresh namespace each round, after their first ConfigMap "+
			"is generated. Time is from the first create (parallel, %d workers) to the benchmark's watch seeing the last "+
			"generated ConfigMap; CPU is the controller's over that time; latency is from a merge patch of one "+
			"generator's spec.data to its ConfigMap showing it, one change at a time, %d changes. VmHWM counts the pages of the "+
			"binary that are resident (kubectl-reflect's binary is %.0f MiB, it links kubectl's libraries; "+
			"crcmg's %.0f MiB); RssAnon is the memory that grows with the objects. Both controllers start reconciling once "+
			"every cache has synced; the samples count the applies the API server answered in the timed part.", r.concurrency, cfg.workers, r.changes,
			mib(r.reflectSize), mib(r.runtimeSize)),
		rows: []row{
			{key: "controller.time", metric: fmt.Sprintf("%d generators created → all %d ConfigMaps exist", n, n), ours: med(r.reflect, secs), baselineName: advised, baseline: med(r.advised, secs), pairs: samePairs(r.reflect, r.advised, secs), unit: "s", format: "%.2f", target: generateTarget},
			{key: "controller.time.defaults", metric: "likewise, against controller-runtime at its defaults (reference)", ours: med(r.reflect, secs), baselineName: cr, baseline: med(r.runtime, secs), pairs: samePairs(r.reflect, r.runtime, secs), unit: "s", format: "%.2f"},
			{key: "controller.cpu", metric: "controller CPU for those", ours: med(r.reflect, cpu), baselineName: advised, baseline: med(r.advised, cpu), pairs: samePairs(r.reflect, r.advised, cpu), unit: "s", format: "%.2f", target: controllerTarget},
			{key: "controller.cpu.defaults", metric: "controller CPU for those, against controller-runtime at its defaults (reference)", ours: med(r.reflect, cpu), baselineName: cr, baseline: med(r.runtime, cpu), pairs: samePairs(r.reflect, r.runtime, cpu), unit: "s", format: "%.2f"},
			{key: "controller.cpu.http2", metric: "controller CPU for those, HTTP/1.1 (the default) against HTTP/2", ours: med(r.reflect, cpu),
				baselineName: "the same command with " + kube.HTTP2Env + "=1", baseline: med(r.http2, cpu), pairs: samePairs(r.reflect, r.http2, cpu), unit: "s", format: "%.2f"},
			{key: "controller.rss", metric: "peak RSS once all exist (VmHWM)", ours: med(r.reflect, hwm), baselineName: advised, baseline: med(r.advised, hwm), pairs: samePairs(r.reflect, r.advised, hwm), unit: "MiB", format: "%.1f", target: controllerTarget},
			{key: "controller.rss.defaults", metric: "peak RSS once all exist (VmHWM), against controller-runtime at its defaults (reference)", ours: med(r.reflect, hwm), baselineName: cr, baseline: med(r.runtime, hwm), pairs: samePairs(r.reflect, r.runtime, hwm), unit: "MiB", format: "%.1f"},
			{key: "controller.anon", metric: "anonymous RSS once all exist (RssAnon)", ours: med(r.reflect, anon), baselineName: advised, baseline: med(r.advised, anon), pairs: samePairs(r.reflect, r.advised, anon), unit: "MiB", format: "%.1f"},
			{key: "controller.anon.defaults", metric: "anonymous RSS once all exist (RssAnon), against controller-runtime at its defaults (reference)", ours: med(r.reflect, anon), baselineName: cr, baseline: med(r.runtime, anon), pairs: samePairs(r.reflect, r.runtime, anon), unit: "MiB", format: "%.1f"},
			{key: "controller.p50", metric: "spec change → ConfigMap updated, p50", ours: med(r.reflect, p50), baselineName: advised, baseline: med(r.advised, p50), pairs: samePairs(r.reflect, r.advised, p50), unit: "ms", format: "%.1f"},
			{key: "controller.p99", metric: "spec change → ConfigMap updated, p99", ours: med(r.reflect, p99), baselineName: advised, baseline: med(r.advised, p99), pairs: samePairs(r.reflect, r.advised, p99), unit: "ms", format: "%.1f", limit: ms(latencyP99Limit)},
		},
	}
	for _, side := range []struct {
		name string
		s    []controllerSample
	}{{"kubectl-reflect", r.reflect}, {"controller-runtime as its docs advise", r.advised}, {"controller-runtime at its defaults", r.runtime}, {"kubectl-reflect over HTTP/2", r.http2}} {
		sec.notes = append(sec.notes, side.name+": "+joinSep(side.s, "; ", func(s controllerSample) string {
			return fmt.Sprintf("%.2f s (creates %.2f s), CPU %.2f s, %d ConfigMap and %d status applies, VmHWM %.1f MiB, RssAnon %.1f MiB, p50 %.1f ms, p99 %.1f ms, max %.1f ms",
				s.generate.Seconds(), s.create.Seconds(), s.cpu.Seconds(), s.writes.applies, s.writes.statusApplies, mib(s.hwm), mib(s.anon),
				ms(percentile(s.latency, 50)), ms(percentile(s.latency, 99)), ms(percentile(s.latency, 100)))
		}))
	}
	return []section{sec}
}

// percentile is the p-th percentile (nearest rank) of sorted durations.
func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := (p*len(sorted)+99)/100 - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
