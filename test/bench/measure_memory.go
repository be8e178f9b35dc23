//go:build linux

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// cacheKind is one of the caches synced in the benchmark's own process.
type cacheKind string

const (
	cacheStore cacheKind = "kubectl-reflect store"
	// cacheStoreStreaming is the store filled by a streaming list
	// (--list-mode=streaming), the list protocol of client-go's default.
	cacheStoreStreaming cacheKind = "kubectl-reflect store by a streaming list (--list-mode=streaming)"
	cacheTyped          cacheKind = "typed informer"
	cacheTypedStripped  cacheKind = "typed informer, managedFields stripped"
	// cacheTypedJSON is the typed informer told to speak JSON, as the store
	// and the dynamic informer do; by default client-go's typed clients of
	// built-in kinds read protobuf.
	cacheTypedJSON cacheKind = "typed informer over JSON"
	// The same two with the streaming list off (informer_typed.go): a LIST
	// of the namespace, then a WATCH from its resourceVersion, as client-go
	// filled its caches before 0.35 and does with WatchListClient=false. Over
	// JSON, that is the protocol path of our store (over HTTP/2, not 1.1).
	cacheTypedList     cacheKind = "typed informer, streaming list off (a LIST, then a WATCH)"
	cacheTypedJSONList cacheKind = "typed informer over JSON, streaming list off (a LIST, then a WATCH)"
	cacheDynamic       cacheKind = "dynamic informer"
	// cacheStoreHTTP2 is the same store over HTTP/2, client-go's default
	// transport (KUBECTL_REFLECT_HTTP2): the measurement behind
	// kube.OverHTTP1 for lists.
	cacheStoreHTTP2 cacheKind = "kubectl-reflect store over HTTP/2 (KUBECTL_REFLECT_HTTP2=1)"
	// The same caches of the Widgets (see crd.go): the data of the
	// ConfigMaps in a custom resource.
	cacheStoreCRD   cacheKind = "kubectl-reflect store, Widgets"
	cacheDynamicCRD cacheKind = "dynamic informer, Widgets"
	// The floors are no cache: one LIST of the namespace read to its end
	// and discarded by client-go's REST client (Go's gzip), which is what
	// any cache pays before it decodes a thing: the server's encoding and
	// compression, the transfer and the inflate.
	floorJSON      cacheKind = "the LIST alone, JSON over HTTP/1.1 as ours (read and discarded)"
	floorProtobuf  cacheKind = "the LIST alone, protobuf over HTTP/2 as the typed informer (read and discarded)"
	floorJSONHTTP2 cacheKind = "the LIST alone, JSON over HTTP/2 (read and discarded)"
	floorCRD       cacheKind = "the LIST alone, Widgets, JSON over HTTP/1.1 as ours (read and discarded)"
)

// cacheKinds are the caches each round syncs, in this order: the
// reference caches over HTTP/2 last, after every cache a target compares.
func cacheKinds() []cacheKind {
	return []cacheKind{cacheStore, cacheTyped, cacheTypedStripped, cacheTypedJSON, cacheTypedList, cacheTypedJSONList, cacheStoreStreaming, cacheDynamic, floorJSON, floorProtobuf,
		cacheStoreCRD, cacheDynamicCRD, floorCRD, cacheStoreHTTP2, floorJSONHTTP2}
}

// syncSample is one cache synced once.
type syncSample struct {
	elapsed time.Duration // from building its client to synced
	cpu     time.Duration // the benchmark's user+system CPU time over elapsed
	heap    int64         // HeapInuse after GC once synced, less HeapInuse after GC before it started
	objects int           // the objects it held
	// With syncRun.rss: the process's resident set, its memory returned to
	// the OS, before the cache started; its peak (VmHWM) from then to synced,
	// and the resident set once synced, memory returned again, less that.
	rssPeak, rssHeld int64
}

func (s syncSample) perObject() float64 { return float64(s.heap) / float64(s.objects) }

type memoryResult struct {
	samples map[cacheKind][]syncSample
}

// syncedCache is a cache that has synced: count counts its objects (-1
// for a floor, which decodes none), stop stops it and waits for its
// goroutines.
type syncedCache struct {
	count func() int
	stop  func()
}

// measureMemory syncs each cache, cfg.repeat times in turns (in reverse
// every other round), one at a
// time, and measures how long it took and how much heap it holds.
func measureMemory(ctx context.Context, e *env) (memoryResult, error) {
	r := memoryResult{samples: map[cacheKind][]syncSample{}}
	for round := range e.cfg.repeat {
		for _, kind := range firstInRound(round, cacheKinds()) {
			run := syncRun{kind: kind, namespace: e.namespace, objects: e.cfg.objects, profile: round == 0 && kind == cacheStore}
			s, err := measureSync(ctx, e, run)
			if err != nil {
				return r, fmt.Errorf("%s: %w", kind, err)
			}
			r.samples[kind] = append(r.samples[kind], s)
			if s.objects < 0 {
				e.logf("round %d/%d: %s in %s (%s CPU)", round+1, e.cfg.repeat, kind, s.elapsed.Round(time.Millisecond), s.cpu.Round(time.Millisecond))
				continue
			}
			e.logf("round %d/%d: %s: %d objects synced in %s (%s CPU), %.0f B per object (%.1f MiB)", round+1, e.cfg.repeat,
				kind, s.objects, s.elapsed.Round(time.Millisecond), s.cpu.Round(time.Millisecond), s.perObject(), mib(s.heap))
		}
	}
	return r, nil
}

// syncRun is one cache to sync in the benchmark's process.
type syncRun struct {
	kind      cacheKind
	namespace string
	objects   int  // the objects it must hold once synced
	profile   bool // write the profiles -cpuprofile and -memprofile ask for
	rss       bool // also read the resident set it takes (syncSample.rssPeak, rssHeld)
}

// measureSync syncs one cache and reads the heap it holds, then stops it
// and lets it go before the next.
func measureSync(ctx context.Context, e *env, run syncRun) (syncSample, error) {
	before := heapInuse()
	var base int64
	if run.rss {
		var err error
		if base, err = resetPeakRSS(); err != nil {
			return syncSample{}, err
		}
	}
	stopCPUProfile := func() error { return nil }
	if run.profile && e.cfg.cpuprofile != "" {
		var err error
		if stopCPUProfile, err = startCPUProfile(e.cfg.cpuprofile); err != nil {
			return syncSample{}, err
		}
	}
	cpu0 := selfCPU()
	start := time.Now()
	c, err := startCache(ctx, run.kind, e.inProcessConfig(), run.namespace, e.cfg.wait)
	elapsed := time.Since(start)
	cpu := selfCPU() - cpu0
	if err := stopCPUProfile(); err != nil {
		return syncSample{}, err
	}
	if err != nil {
		return syncSample{}, err
	}
	s := syncSample{elapsed: elapsed, cpu: cpu, objects: c.count()}
	if run.rss {
		if s.rssPeak, s.rssHeld, err = residentSince(base); err != nil {
			c.stop()
			return syncSample{}, err
		}
	}
	s.heap = heapInuse() - before
	runtime.KeepAlive(c)
	var profErr error
	if run.profile && e.cfg.memprofile != "" {
		profErr = writeHeapProfile(e.cfg.memprofile)
		e.logf("wrote the heap profile with the %s synced to %s", run.kind, e.cfg.memprofile)
	}
	c.stop()
	if profErr != nil {
		return syncSample{}, profErr
	}
	if s.objects >= 0 && s.objects != run.objects {
		return syncSample{}, fmt.Errorf("synced %d objects, want %d", s.objects, run.objects)
	}
	return s, nil
}

// selfCPU is the user+system CPU time of the benchmark's process so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// startCache builds a cache of kind, with its own client, of the
// namespace's ConfigMaps, and returns once it has synced, or fails after
// limit.
func startCache(ctx context.Context, kind cacheKind, cfg *rest.Config, namespace string, limit time.Duration) (*syncedCache, error) {
	switch kind {
	case cacheStore:
		return startStore(ctx, cfg, configMaps, namespace, watch.ListWhole, limit)
	case cacheStoreStreaming:
		return startStore(ctx, cfg, configMaps, namespace, watch.ListStreaming, limit)
	case cacheStoreHTTP2:
		var c *syncedCache
		err := overHTTP2(func() (err error) {
			c, err = startStore(ctx, cfg, configMaps, namespace, watch.ListWhole, limit)
			return err
		})
		return c, err
	case cacheStoreCRD:
		return startStore(ctx, cfg, widgetsKind, namespace, watch.ListWhole, limit)
	case cacheTyped, cacheTypedStripped, cacheTypedJSON, cacheTypedList, cacheTypedJSONList:
		return startTyped(ctx, kind, cfg, namespace, limit)
	case floorJSON, floorProtobuf, floorJSONHTTP2, floorCRD:
		return readList(ctx, kind, cfg, namespace)
	case cacheDynamic, cacheDynamicCRD:
		dc, err := dynamic.NewForConfig(cfg)
		if err != nil {
			return nil, fmt.Errorf("dynamic client: %w", err)
		}
		f := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dc, 0, namespace, nil)
		gvr := configMaps.GVR
		if kind == cacheDynamicCRD {
			gvr = widgets
		}
		return startInformer(ctx, f, f.ForResource(gvr).Informer(), limit)
	}
	return nil, fmt.Errorf("unknown cache %q", kind)
}

// startStore runs a watcher into a kubectl-reflect store, as `kubectl
// reflect watch` and `get` do, filled by the list mode given. It fails
// when the store was filled by another path than that mode: the
// requests its client sent are counted, as the typed informers' are.
func startStore(ctx context.Context, cfg *rest.Config, resource kube.Resource, namespace string, list watch.ListMode, limit time.Duration) (*syncedCache, error) {
	cfg = rest.CopyConfig(cfg)
	var sent listRequests
	cfg.Wrap(sent.wrap)
	c, err := newStoreClient(cfg, resource, namespace)
	if err != nil {
		return nil, err
	}
	s := newStore(c)
	w := startWatcher(ctx, c, list, s.Apply)
	if err := w.waitFor(ctx, s.Synced(), limit); err != nil {
		w.stop()
		return nil, err
	}
	if err := sent.check(list == watch.ListStreaming); err != nil {
		w.stop()
		return nil, err
	}
	return &syncedCache{count: s.Len, stop: w.stop}, nil
}

// readList reads one LIST of the namespace for a floor and discards it,
// over the transport of the cache it is the floor of: JSON over HTTP/1.1
// for ours (kube.OverHTTP1), protobuf over client-go's HTTP/2 for the
// typed informer; and JSON over HTTP/2, the transport ours left.
func readList(ctx context.Context, kind cacheKind, cfg *rest.Config, namespace string) (*syncedCache, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.APIPath, cfg.GroupVersion = "/api", &corev1.SchemeGroupVersion
	cfg.AcceptContentTypes = "application/json"
	resource := configMaps.GVR.Resource
	switch kind {
	case floorProtobuf:
		cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf"
	case floorCRD:
		gv := widgets.GroupVersion()
		cfg.APIPath, cfg.GroupVersion, resource = "/apis", &gv, widgets.Resource
	}
	if kind != floorProtobuf && kind != floorJSONHTTP2 {
		kube.OverHTTP1(cfg)
	}
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	rc, err := rest.RESTClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("REST client: %w", err)
	}
	body, err := rc.Get().Namespace(namespace).Resource(resource).Stream(ctx)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", resource, err)
	}
	defer body.Close()
	if _, err := io.Copy(io.Discard, body); err != nil {
		return nil, fmt.Errorf("list %s: %w", resource, err)
	}
	return &syncedCache{count: func() int { return -1 }, stop: func() {}}, nil
}

// informerFactory is what the typed and the dynamic factories share.
type informerFactory interface {
	Start(stopCh <-chan struct{})
	Shutdown()
}

// startInformer starts f, whose informers inf is, and waits until inf has
// synced. It waits on HasSyncedChecker's channel, as cache.WaitFor does:
// cache.WaitForCacheSync polls HasSynced every 100 ms, too coarse to time a
// sync of a fraction of a second.
func startInformer(ctx context.Context, f informerFactory, inf cache.SharedIndexInformer, limit time.Duration) (*syncedCache, error) {
	stopCh := make(chan struct{})
	f.Start(stopCh)
	c := &syncedCache{
		count: func() int { return len(inf.GetStore().ListKeys()) },
		stop:  func() { close(stopCh); f.Shutdown() },
	}
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case <-inf.HasSyncedChecker().Done():
		return c, nil
	case <-ctx.Done():
		c.stop()
		return nil, ctx.Err()
	case <-t.C:
		c.stop()
		return nil, fmt.Errorf("informer not synced after %s", limit)
	}
}

// stripManagedFields is the transform of the second typed informer.
func stripManagedFields(obj any) (any, error) {
	if m, err := meta.Accessor(obj); err == nil {
		m.SetManagedFields(nil)
	}
	return obj, nil
}

// overHTTP2 runs start with kube.HTTP2Env set, as a user who keeps HTTP/2
// would: the clients it builds speak HTTP/2 (their transport is chosen when
// they are built). The caches start one at a time.
func overHTTP2(start func() error) error {
	old, had := os.LookupEnv(kube.HTTP2Env)
	if err := os.Setenv(kube.HTTP2Env, "1"); err != nil {
		return err
	}
	defer func() {
		if had {
			os.Setenv(kube.HTTP2Env, old)
		} else {
			os.Unsetenv(kube.HTTP2Env)
		}
	}()
	return start()
}
