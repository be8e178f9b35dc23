package controller

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// inFlight collects workqueue_unfinished_work_seconds and
// workqueue_longest_running_processor_seconds when scraped, from the start
// times of the reconciles in flight: client-go's workqueue updates them
// every half second from a goroutine; computing them at scrape time needs
// none and is never stale.
type inFlight struct {
	unfinished, longest *prometheus.Desc

	mu     sync.Mutex
	next   uint64
	starts map[string]map[uint64]time.Time // by controller, by reconcile
}

func newInFlight() *inFlight {
	labels := []string{"name", "controller"}
	return &inFlight{
		unfinished: prometheus.NewDesc("workqueue_unfinished_work_seconds",
			"How many seconds of work has been done that is in progress and hasn't been observed by work_duration. "+
				"Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.",
			labels, nil),
		longest: prometheus.NewDesc("workqueue_longest_running_processor_seconds",
			"How many seconds has the longest running processor for workqueue been running.", labels, nil),
		starts: map[string]map[uint64]time.Time{},
	}
}

// add makes controller's series exist (0 while nothing runs).
func (f *inFlight) add(controller string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.starts[controller] == nil {
		f.starts[controller] = map[uint64]time.Time{}
	}
}

func (f *inFlight) start(controller string) uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.starts[controller] == nil {
		f.starts[controller] = map[uint64]time.Time{}
	}
	f.next++
	f.starts[controller][f.next] = time.Now()
	return f.next
}

func (f *inFlight) end(controller string, id uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.starts[controller], id)
}

// Describe implements prometheus.Collector.
func (f *inFlight) Describe(ch chan<- *prometheus.Desc) {
	ch <- f.unfinished
	ch <- f.longest
}

// Collect implements prometheus.Collector.
func (f *inFlight) Collect(ch chan<- prometheus.Metric) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := time.Now()
	for controller, starts := range f.starts {
		var total, longest float64
		for _, t := range starts {
			d := now.Sub(t).Seconds()
			total += d
			longest = max(longest, d)
		}
		ch <- prometheus.MustNewConstMetric(f.unfinished, prometheus.GaugeValue, total, controller, controller)
		ch <- prometheus.MustNewConstMetric(f.longest, prometheus.GaugeValue, longest, controller, controller)
	}
}
