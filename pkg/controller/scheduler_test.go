package controller

import (
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// The scheduler's tests run in synctest bubbles: time is fake, and
// time.Sleep moves it on once every goroutine of the bubble is blocked.

var (
	reqA = Request{Namespace: "ns", Name: "a"}
	reqB = Request{Namespace: "ns", Name: "b"}
	reqC = Request{Namespace: "ns", Name: "c"}
	reqD = Request{Namespace: "ns", Name: "d"}

	change = Trigger{Kind: TriggerChange}
	errX   = errors.New("boom")
)

// take returns the request the scheduler hands out now, failing the test
// if there is none.
func take(t *testing.T, s *scheduler) (Request, Trigger) {
	t.Helper()
	req, tr, ok, _, _ := s.tryNext()
	if !ok {
		t.Fatalf("nothing ready at %v", time.Now())
	}
	return req, tr
}

// none fails the test if the scheduler hands anything out now.
func none(t *testing.T, s *scheduler) {
	t.Helper()
	if req, _, ok, _, _ := s.tryNext(); ok {
		t.Fatalf("%v ready at %v, want none", req, time.Now())
	}
}

func takeAll(t *testing.T, s *scheduler) []Request {
	t.Helper()
	var out []Request
	for {
		req, _, ok, _, _ := s.tryNext()
		if !ok {
			return out
		}
		out = append(out, req)
	}
}

func equalRequests(t *testing.T, got, want []Request) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

func TestSchedulerDedupes(t *testing.T) {
	s := newScheduler(DefaultBackoff, schedulerHooks{})
	for _, r := range []Request{reqA, reqA, reqB, reqA, reqB} {
		s.add(r, change, live, 0)
	}
	equalRequests(t, takeAll(t, s), []Request{reqA, reqB})
	s.done(reqA, Result{}, nil)
	s.done(reqB, Result{}, nil)
	if n := s.size(); n != 0 {
		t.Fatalf("scheduler keeps %d entries after every success, want 0", n)
	}
}

func TestSchedulerRerunsAfterTriggerDuringReconcile(t *testing.T) {
	s := newScheduler(DefaultBackoff, schedulerHooks{})
	s.add(reqA, change, live, 0)
	take(t, s)
	s.add(reqA, Trigger{Kind: TriggerChange, Resource: "configmaps"}, live, 0)
	s.add(reqA, change, live, 0)
	none(t, s) // never twice at once
	s.done(reqA, Result{}, nil)
	if _, tr := take(t, s); tr.Resource != "configmaps" {
		t.Fatalf("rerun trigger = %+v, want the first change during the reconcile", tr)
	}
	none(t, s) // once more, not twice
	s.done(reqA, Result{}, nil)
	none(t, s)
}

func TestSchedulerNeverRunsOneKeyTwiceAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newScheduler(DefaultBackoff, schedulerHooks{})
		var (
			mu              sync.Mutex
			inFlight        = map[Request]int{}
			runs            = map[Request]int{}
			maxKey, maxAll  int
			total           int
			workers         sync.WaitGroup
			keys            = []Request{reqA, reqB, reqC}
			reconcileLength = time.Second
		)
		for range 4 {
			workers.Go(func() {
				for {
					req, _, ok := s.next()
					if !ok {
						return
					}
					mu.Lock()
					inFlight[req]++
					runs[req]++
					total++
					maxKey = max(maxKey, inFlight[req])
					maxAll = max(maxAll, total)
					mu.Unlock()
					time.Sleep(reconcileLength)
					mu.Lock()
					inFlight[req]--
					total--
					mu.Unlock()
					s.done(req, Result{}, nil)
				}
			})
		}
		for i := range 30 {
			s.add(keys[i%len(keys)], change, live, 0)
			time.Sleep(reconcileLength / 4)
		}
		time.Sleep(10 * reconcileLength)
		synctest.Wait()
		s.shutdownNow()
		workers.Wait()
		if maxKey != 1 {
			t.Errorf("a key ran %d times at once, want 1", maxKey)
		}
		if maxAll < 2 {
			t.Errorf("at most %d reconciles at once with 4 workers, want several keys at once", maxAll)
		}
		for _, k := range keys {
			if runs[k] < 2 {
				t.Errorf("%v ran %d times, want a rerun for the triggers during its reconciles", k, runs[k])
			}
		}
	})
}

func TestBackoffDelay(t *testing.T) {
	b := Backoff{Base: 5 * time.Millisecond, Max: 1000 * time.Second}
	tests := []struct {
		failures int
		want     time.Duration
	}{
		{1, 5 * time.Millisecond},
		{2, 10 * time.Millisecond},
		{3, 20 * time.Millisecond},
		{10, 5 * time.Millisecond << 9},
		{30, 1000 * time.Second},
		{1000, 1000 * time.Second},
	}
	for _, tt := range tests {
		if got := b.delay(tt.failures); got != tt.want {
			t.Errorf("delay(%d) = %v, want %v", tt.failures, got, tt.want)
		}
	}
	if got := (Backoff{}).orDefault(); got != DefaultBackoff {
		t.Errorf("zero Backoff = %+v, want DefaultBackoff", got)
	}
}

// failAndWait fails a run of req and checks that its retry comes exactly
// after want.
func failAndWait(t *testing.T, s *scheduler, want time.Duration) {
	t.Helper()
	req, _ := take(t, s)
	s.done(req, Result{}, errX)
	time.Sleep(want - time.Nanosecond)
	none(t, s)
	time.Sleep(time.Nanosecond)
	if _, tr := take(t, s); tr.Kind != TriggerRetry {
		t.Fatalf("retry trigger = %v, want retry", tr.Kind)
	}
	s.done(req, Result{}, errX)
	s.add(req, change, live, 0) // a change retries at once, keeping the failure count
}

func TestSchedulerBacksOffAndResets(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newScheduler(Backoff{Base: time.Second, Max: 8 * time.Second}, schedulerHooks{})
		s.add(reqA, change, live, 0)
		// Each failAndWait fails twice: the retry after want, then a change.
		for _, want := range []time.Duration{1, 4, 8, 8} {
			failAndWait(t, s, want*time.Second)
		}
		take(t, s)
		s.done(reqA, Result{}, nil) // success resets
		if n := s.size(); n != 0 {
			t.Fatalf("scheduler keeps %d entries after a success, want 0", n)
		}
		s.add(reqA, change, live, 0)
		failAndWait(t, s, time.Second)
	})
}

func TestSchedulerDoesNotRetryTerminal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newScheduler(DefaultBackoff, schedulerHooks{})
		s.add(reqA, change, live, 0)
		take(t, s)
		s.done(reqA, Result{}, Terminal(errX))
		time.Sleep(2 * DefaultBackoff.Max)
		none(t, s)
		s.add(reqA, change, live, 0) // the next change retries
		take(t, s)
	})
}

func TestSchedulerDebounces(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newScheduler(DefaultBackoff, schedulerHooks{})
		const debounce = 10 * time.Second
		s.add(reqA, change, live, debounce)
		time.Sleep(debounce / 2)
		s.add(reqA, change, live, debounce) // the burst's first change sets the time
		s.add(reqB, change, live, debounce)
		time.Sleep(debounce/2 - time.Nanosecond)
		none(t, s)
		time.Sleep(time.Nanosecond)
		equalRequests(t, takeAll(t, s), []Request{reqA})
		time.Sleep(debounce / 2)
		equalRequests(t, takeAll(t, s), []Request{reqB})
	})
}

func TestSchedulerRequeueAfterEarliestWins(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newScheduler(DefaultBackoff, schedulerHooks{})
		s.add(reqA, change, live, 0)
		take(t, s)
		s.done(reqA, Result{RequeueAfter: 10 * time.Second}, nil)
		s.add(reqA, change, live, 3*time.Second) // sooner: wins
		time.Sleep(3 * time.Second)
		if _, tr := take(t, s); tr.Kind != TriggerChange {
			t.Fatalf("trigger = %v, want the change that came sooner", tr.Kind)
		}
		s.done(reqA, Result{RequeueAfter: 10 * time.Second}, nil)
		s.add(reqA, change, live, 20*time.Second) // later: the requeue wins
		time.Sleep(10*time.Second - time.Nanosecond)
		none(t, s)
		time.Sleep(time.Nanosecond)
		if _, tr := take(t, s); tr.Kind != TriggerRequeue {
			t.Fatalf("trigger = %v, want the requeue", tr.Kind)
		}
		s.done(reqA, Result{}, nil)
		time.Sleep(time.Minute)
		none(t, s) // the later change was merged into the requeue
	})
}

func TestSchedulerLiveBeforeBacklog(t *testing.T) {
	s := newScheduler(DefaultBackoff, schedulerHooks{})
	s.add(reqA, change, backlog, 0)
	s.add(reqB, change, backlog, 0)
	s.add(reqC, change, backlog, 0)
	s.add(reqD, change, live, 0)
	s.add(reqB, change, live, 0) // a live change to a listed object: promoted
	s.add(reqC, change, backlog, 0)
	equalRequests(t, takeAll(t, s), []Request{reqD, reqB, reqA, reqC})
}

func TestSchedulerShutdown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newScheduler(DefaultBackoff, schedulerHooks{})
		got := make(chan bool)
		go func() { _, _, ok := s.next(); got <- ok }()
		synctest.Wait()
		s.add(reqA, change, live, 0)
		if !<-got {
			t.Fatal("a waiting worker got nothing")
		}
		go func() { _, _, ok := s.next(); got <- ok }()
		s.add(reqB, change, live, time.Hour)
		synctest.Wait()
		s.shutdownNow()
		if <-got {
			t.Fatal("next handed out a request after shutdown")
		}
		s.done(reqA, Result{}, errX) // the run in flight ends after shutdown
		s.add(reqA, change, live, 0)
		if _, _, ok := s.next(); ok {
			t.Fatal("next handed out a request after shutdown")
		}
	})
}

func TestSchedulerCountsQueuedByPriority(t *testing.T) {
	var depth [2]int
	adds := 0
	s := newScheduler(DefaultBackoff, schedulerHooks{
		depth: func(p priority, n int) { depth[p] = n },
		added: func() { adds++ },
	})
	s.add(reqA, change, backlog, 0)
	s.add(reqB, change, backlog, 0)
	s.add(reqC, change, live, 0)
	s.add(reqC, change, live, 0) // deduplicated: no add
	s.add(reqA, change, live, 0) // promoted
	if depth != [2]int{backlog: 1, live: 2} || adds != 3 {
		t.Fatalf("depth %v adds %d, want backlog 1 live 2, 3 adds", depth, adds)
	}
	take(t, s)
	if depth != [2]int{backlog: 1, live: 1} {
		t.Fatalf("depth %v after a take, want backlog 1 live 1", depth)
	}
	s.shutdownNow()
	if depth != [2]int{} {
		t.Fatalf("depth %v after shutdown, want 0", depth)
	}
}

func TestSchedulerHoldsEachDelayedRequestOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newScheduler(DefaultBackoff, schedulerHooks{})
		s.add(reqA, change, live, 0)
		for range 1000 { // a requeue far off, then a change sooner, again and again
			take(t, s)
			s.done(reqA, Result{RequeueAfter: time.Hour}, nil)
			s.add(reqB, change, live, time.Minute)
			s.add(reqA, change, live, 0)
		}
		if n := len(s.timers); n != 1 {
			t.Fatalf("%d timers for one delayed request, want 1", n)
		}
	})
}
