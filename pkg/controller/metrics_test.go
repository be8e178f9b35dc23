package controller

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/kubectl-reflect/kubectl-reflect/internal/reflectortest"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
)

// outcomes reconciles each generator as its name says: ok, fail (once),
// terminal, panic (once), requeue (after an hour), block (until release).
type outcomes struct {
	mu      sync.Mutex
	seen    map[Request]bool
	release chan struct{}
}

func (o *outcomes) Reconcile(ctx context.Context, req Request) (Result, error) {
	o.mu.Lock()
	again := o.seen[req]
	o.seen[req] = true
	o.mu.Unlock()
	switch {
	case req.Name == "fail" && !again:
		return Result{}, errors.New("failed")
	case req.Name == "terminal":
		return Result{}, Terminal(errors.New("invalid"))
	case req.Name == "panic" && !again:
		panic("oops")
	case req.Name == "requeue":
		return Result{RequeueAfter: time.Hour}, nil
	case req.Name == "block":
		<-o.release
	}
	return Result{}, nil
}

func TestMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := reflectortest.NewServer()
		for _, name := range []string{"ok", "fail", "terminal", "panic", "requeue", "block"} {
			apply(t, srv, generators, generator("ns1", name))
		}
		reg := prometheus.NewPedanticRegistry()
		m := NewMetrics(reg)
		o := &outcomes{seen: map[Request]bool{}, release: make(chan struct{})}
		c, set := newTestController(t, srv, o, Options{Metrics: m, Concurrency: 2})
		bi := NewBuilder("idle", set)
		bi.For(configMaps, kube.Scope{})
		idle, err := bi.Build(o, Options{Metrics: m})
		if err != nil {
			t.Fatal(err)
		}
		stop := started(t, c)
		stopIdle := started(t, idle)
		time.Sleep(3 * time.Second) // fake time: the retries pass, "block" runs 3s
		synctest.Wait()

		expect(t, reg, `
# HELP controller_runtime_reconcile_total Total number of reconciliations per controller
# TYPE controller_runtime_reconcile_total counter
controller_runtime_reconcile_total{controller="idle",result="error"} 0
controller_runtime_reconcile_total{controller="idle",result="requeue"} 0
controller_runtime_reconcile_total{controller="idle",result="requeue_after"} 0
controller_runtime_reconcile_total{controller="idle",result="success"} 0
controller_runtime_reconcile_total{controller="test",result="error"} 3
controller_runtime_reconcile_total{controller="test",result="requeue"} 0
controller_runtime_reconcile_total{controller="test",result="requeue_after"} 1
controller_runtime_reconcile_total{controller="test",result="success"} 3
# HELP controller_runtime_reconcile_errors_total Total number of reconciliation errors per controller
# TYPE controller_runtime_reconcile_errors_total counter
controller_runtime_reconcile_errors_total{controller="idle"} 0
controller_runtime_reconcile_errors_total{controller="test"} 3
# HELP controller_runtime_terminal_reconcile_errors_total Total number of terminal reconciliation errors per controller
# TYPE controller_runtime_terminal_reconcile_errors_total counter
controller_runtime_terminal_reconcile_errors_total{controller="idle"} 0
controller_runtime_terminal_reconcile_errors_total{controller="test"} 1
# HELP controller_runtime_reconcile_panics_total Total number of reconciliation panics per controller
# TYPE controller_runtime_reconcile_panics_total counter
controller_runtime_reconcile_panics_total{controller="idle"} 0
controller_runtime_reconcile_panics_total{controller="test"} 1
# HELP controller_runtime_max_concurrent_reconciles Maximum number of concurrent reconciles per controller
# TYPE controller_runtime_max_concurrent_reconciles gauge
controller_runtime_max_concurrent_reconciles{controller="idle"} 1
controller_runtime_max_concurrent_reconciles{controller="test"} 2
# HELP controller_runtime_active_workers Number of currently used workers per controller
# TYPE controller_runtime_active_workers gauge
controller_runtime_active_workers{controller="idle"} 0
controller_runtime_active_workers{controller="test"} 1
# HELP workqueue_adds_total Total number of adds handled by workqueue
# TYPE workqueue_adds_total counter
workqueue_adds_total{controller="idle",name="idle"} 0
workqueue_adds_total{controller="test",name="test"} 8
# HELP workqueue_retries_total Total number of retries handled by workqueue
# TYPE workqueue_retries_total counter
workqueue_retries_total{controller="idle",name="idle"} 0
workqueue_retries_total{controller="test",name="test"} 2
# HELP workqueue_unfinished_work_seconds How many seconds of work has been done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.
# TYPE workqueue_unfinished_work_seconds gauge
workqueue_unfinished_work_seconds{controller="idle",name="idle"} 0
workqueue_unfinished_work_seconds{controller="test",name="test"} 3
# HELP workqueue_longest_running_processor_seconds How many seconds has the longest running processor for workqueue been running.
# TYPE workqueue_longest_running_processor_seconds gauge
workqueue_longest_running_processor_seconds{controller="idle",name="idle"} 0
workqueue_longest_running_processor_seconds{controller="test",name="test"} 3
`)
		close(o.release)
		if err := stop(); err != nil {
			t.Fatal(err)
		}
		if err := stopIdle(); err != nil {
			t.Fatal(err)
		}
		expect(t, reg, `
# HELP controller_runtime_active_workers Number of currently used workers per controller
# TYPE controller_runtime_active_workers gauge
controller_runtime_active_workers{controller="idle"} 0
controller_runtime_active_workers{controller="test"} 0
# HELP workqueue_depth Current depth of workqueue by workqueue and priority
# TYPE workqueue_depth gauge
workqueue_depth{controller="idle",name="idle",priority="-100"} 0
workqueue_depth{controller="idle",name="idle",priority="0"} 0
workqueue_depth{controller="test",name="test",priority="-100"} 0
workqueue_depth{controller="test",name="test",priority="0"} 0
`)
		for _, h := range []*prometheus.HistogramVec{m.reconcileTime, m.queueDuration, m.workDuration} {
			if n := testutil.CollectAndCount(h); n == 0 {
				t.Errorf("a histogram has no series")
			}
		}
		if n := testutil.CollectAndCount(m.reconcileTime); n != 1 {
			t.Errorf("controller_runtime_reconcile_time_seconds has %d series, want 1 (the controller that reconciled)", n)
		}
	})
}

// expect compares the metrics named in want with reg's.
func expect(t *testing.T, reg *prometheus.Registry, want string) {
	t.Helper()
	var names []string
	for _, line := range strings.Split(want, "\n") {
		if name, ok := strings.CutPrefix(line, "# TYPE "); ok {
			names = append(names, strings.Fields(name)[0])
		}
	}
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}
}

func TestNewMetricsPanicsOnASecondRegistration(t *testing.T) {
	reg := prometheus.NewRegistry()
	NewMetrics(reg)
	defer func() {
		if recover() == nil {
			t.Fatal("a second Metrics on one registry did not panic")
		}
	}()
	NewMetrics(reg)
}
