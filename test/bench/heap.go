//go:build linux

package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
	"time"
)

// heapInuse is the benchmark's HeapInuse once two garbage collections have
// freed what nothing holds any more.
func heapInuse() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}

// writeHeapProfile writes the benchmark's heap profile (in-use and
// allocated space, as of the last GC) to path.
func writeHeapProfile(path string) error {
	runtime.GC()
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("heap profile: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	return nil
}

// startCPUProfile starts the CPU profile of the benchmark into path; the
// function it returns stops it.
func startCPUProfile(path string) (func() error, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("CPU profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("CPU profile: %w", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			return fmt.Errorf("CPU profile: %w", err)
		}
		return nil
	}, nil
}

// heapPeak is the largest heap a heapSampler saw.
type heapPeak struct {
	inuse   int64 // HeapInuse
	live    int64 // the heap the last GC found live
	samples int
}

// heapSampler reads the heap every period until stopped. It reads
// runtime/metrics, which does not stop the world as ReadMemStats does:
// heap/objects plus heap/unused is HeapInuse (the runtime checks that they
// agree whenever ReadMemStats runs).
type heapSampler struct {
	stopping chan struct{}
	done     sync.WaitGroup
	metrics  []metrics.Sample // heap/objects, heap/unused, gc/heap/live
	peak     heapPeak
}

func startHeapSampler(period time.Duration) *heapSampler {
	h := &heapSampler{stopping: make(chan struct{}), metrics: []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/gc/heap/live:bytes"},
	}}
	h.sample() // the state it starts from
	h.done.Go(func() {
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-h.stopping:
				return
			case <-t.C:
				h.sample()
			}
		}
	})
	return h
}

func (h *heapSampler) sample() {
	s := h.metrics
	metrics.Read(s)
	inuse := int64(s[0].Value.Uint64() + s[1].Value.Uint64())
	h.peak.inuse = max(h.peak.inuse, inuse)
	h.peak.live = max(h.peak.live, int64(s[2].Value.Uint64()))
	h.peak.samples++
}

// stop takes a last sample and returns the peak.
func (h *heapSampler) stop() heapPeak {
	close(h.stopping)
	h.done.Wait()
	h.sample()
	return h.peak
}

// resetPeakRSS returns the freed heap to the OS, then resets the process's
// peak resident set (VmHWM) to its resident set now, which it returns: the
// base residentSince measures from.
func resetPeakRSS() (int64, error) {
	debug.FreeOSMemory()
	m, err := readMemory(os.Getpid())
	if err != nil {
		return 0, err
	}
	// 5: reset the peak RSS of the process (proc(5), since Linux 4.0).
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		return 0, fmt.Errorf("reset the peak RSS: %w", err)
	}
	return m.rss, nil
}

// residentSince reads the peak resident set since resetPeakRSS, then returns
// the freed heap to the OS and reads the resident set: each less base.
func residentSince(base int64) (peak, held int64, err error) {
	m, err := readMemory(os.Getpid())
	if err != nil {
		return 0, 0, err
	}
	debug.FreeOSMemory()
	now, err := readMemory(os.Getpid())
	if err != nil {
		return 0, 0, err
	}
	return m.hwm - base, now.rss - base, nil
}
