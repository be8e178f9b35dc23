package controller

import (
	"container/heap"
	"sync"
	"time"
)

// priority orders ready requests: live changes go before what is left of
// an initial list's backlog (controller-runtime's priority queue does the
// same), so that a user's edit is not stuck behind thousands of objects
// listed at start.
type priority uint8

const (
	backlog priority = iota // the initial list, a relist, ReconcileAll
	live                    // a change after the input synced, a requeue, a retry
)

// state is where a request is in the scheduler.
type state uint8

const (
	idle    state = iota // not known: no entry
	delayed              // waits for its time (debounce, requeue, backoff)
	queued               // ready, waits for a worker
	running              // a worker reconciles it
)

// entry is one request the scheduler knows. It exists while the request is
// delayed, queued or running, and while it has failures to back off from
// (a failed request is always delayed for its retry, or queued sooner by a
// change).
type entry struct {
	req      Request
	state    state
	trigger  Trigger   // why it will run (delayed, queued) or runs (running)
	prio     priority  // its list once ready
	at       time.Time // delayed: when it becomes ready
	timer    int       // delayed: its index in the scheduler's timers
	gen      uint64    // queued: the list slot that is current
	readyAt  time.Time // queued: when it became ready (queue duration)
	failures int       // consecutive failed reconciles (backoff)

	// A trigger during a reconcile: run once more afterwards.
	again        bool
	againAt      time.Time
	againTrigger Trigger
	againPrio    priority
}

// slot is a request's place in a ready list; a slot whose gen is not its
// entry's current one is stale (the entry was promoted or ran) and skipped.
type slot struct {
	req Request
	gen uint64
}

// scheduler decides which request runs when: pure logic over time.Now and
// timers, no API. It is safe for concurrent use.
//
// Contract: a request is reconciled at most once at a time; a request
// added while queued or delayed is deduplicated (the earliest time wins,
// the higher priority wins); one added while running runs once more after
// it; a failure delays the next run by the backoff of its consecutive
// failures (reset by a success or a Terminal error, which is not retried);
// RequeueAfter delays the next run unless a change comes sooner. next hands
// ready requests to at most as many workers as call it; after stop it hands
// out none, and done still accepts the outcome of a run in flight.
type scheduler struct {
	backoff Backoff
	hooks   schedulerHooks

	wake chan struct{} // a token when something may be ready or earlier
	stop chan struct{} // closed by shutdown

	mu       sync.Mutex
	entries  map[Request]*entry
	lists    [2][]slot // by priority
	ready    [2]int    // valid slots in lists, by priority
	timers   timerHeap
	nextGen  uint64
	shutdown bool
}

// schedulerHooks let metrics watch the queue; each is optional and called
// with the scheduler's lock held, so it must be quick.
type schedulerHooks struct {
	depth   func(p priority, n int)                // n requests of p are queued now
	added   func()                                 // a request became ready (workqueue adds)
	started func(p priority, waited time.Duration) // a worker took a request queued that long
	retried func()                                 // a failure scheduled a retry
}

func newScheduler(backoff Backoff, hooks schedulerHooks) *scheduler {
	return &scheduler{
		backoff: backoff, hooks: hooks,
		wake: make(chan struct{}, 1), stop: make(chan struct{}),
		entries: map[Request]*entry{},
	}
}

// add asks for req to run after delay (0: as soon as a worker is free).
func (s *scheduler) add(req Request, t Trigger, p priority, delay time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shutdown {
		return
	}
	at := time.Now().Add(delay)
	e := s.entries[req]
	if e == nil {
		e = &entry{req: req}
		s.entries[req] = e
	}
	switch e.state {
	case running:
		if !e.again || at.Before(e.againAt) {
			e.againAt, e.againTrigger = at, t
		}
		e.againPrio = max(e.againPrio, p)
		e.again = true
		return
	case queued:
		if p > e.prio {
			s.countLocked(e.prio, -1)
			e.prio = p
			s.countLocked(e.prio, +1)
			s.pushReadyLocked(e) // the old slot goes stale
		}
		return
	case delayed:
		if p > e.prio {
			e.prio = p
		}
		if !at.Before(e.at) {
			return
		}
	}
	e.trigger, e.prio = t, max(e.prio, p)
	s.scheduleLocked(e, at)
}

// scheduleLocked makes e ready now or delays it until at.
func (s *scheduler) scheduleLocked(e *entry, at time.Time) {
	if !at.After(time.Now()) {
		if e.state != queued {
			s.pushReadyLocked(e)
		}
		return
	}
	e.at = at
	if e.state == delayed {
		heap.Fix(&s.timers, e.timer)
	} else {
		e.state = delayed
		heap.Push(&s.timers, e)
	}
	s.signal()
}

func (s *scheduler) pushReadyLocked(e *entry) {
	if e.state == delayed {
		heap.Remove(&s.timers, e.timer)
	}
	if e.state != queued {
		e.readyAt = time.Now()
		s.countLocked(e.prio, +1)
		if s.hooks.added != nil {
			s.hooks.added()
		}
	}
	s.nextGen++
	e.state, e.gen = queued, s.nextGen
	s.lists[e.prio] = append(s.lists[e.prio], slot{req: e.req, gen: e.gen})
	s.signal()
}

// countLocked counts delta more queued requests of priority p.
func (s *scheduler) countLocked(p priority, delta int) {
	s.ready[p] += delta
	if s.hooks.depth != nil {
		s.hooks.depth(p, s.ready[p])
	}
}

func (s *scheduler) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// next waits for a ready request and marks it running; ok is false once
// the scheduler is shut down. The caller must call done with its outcome.
func (s *scheduler) next() (req Request, t Trigger, ok bool) {
	for {
		req, t, ok, wait, timed := s.tryNext()
		if ok {
			return req, t, true
		}
		select {
		case <-s.stop:
			return Request{}, Trigger{}, false
		default:
		}
		s.sleep(wait, timed)
	}
}

// tryNext is next without waiting: if nothing is ready, it says how long
// until the earliest delayed request is due (timed false: none is).
func (s *scheduler) tryNext() (req Request, t Trigger, ok bool, wait time.Duration, timed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shutdown {
		return Request{}, Trigger{}, false, 0, false
	}
	s.promoteDueLocked(time.Now())
	if e := s.popLocked(); e != nil {
		if s.ready[live]+s.ready[backlog] > 0 {
			s.signal() // another worker may take the next one
		}
		return e.req, e.trigger, true, 0, false
	}
	wait, timed = s.untilDueLocked()
	return Request{}, Trigger{}, false, wait, timed
}

// sleep waits for a signal, for wait when timed, or for shutdown.
func (s *scheduler) sleep(wait time.Duration, timed bool) {
	var fire <-chan time.Time
	if timed {
		t := time.NewTimer(wait)
		defer t.Stop()
		fire = t.C
	}
	select {
	case <-s.wake:
	case <-fire:
	case <-s.stop:
	}
}

// popLocked takes the first valid slot, live before backlog.
func (s *scheduler) popLocked() *entry {
	for p := live; ; p-- {
		for len(s.lists[p]) > 0 {
			sl := s.lists[p][0]
			s.lists[p][0] = slot{}
			s.lists[p] = s.lists[p][1:]
			e := s.entries[sl.req]
			if e == nil || e.state != queued || e.gen != sl.gen {
				continue // stale
			}
			s.countLocked(p, -1)
			if s.hooks.started != nil {
				s.hooks.started(p, time.Since(e.readyAt))
			}
			e.state = running
			return e
		}
		if p == backlog {
			return nil
		}
	}
}

// promoteDueLocked makes every delayed request whose time came ready.
func (s *scheduler) promoteDueLocked(now time.Time) {
	for len(s.timers) > 0 && !s.timers[0].at.After(now) {
		s.pushReadyLocked(s.timers[0])
	}
}

// untilDueLocked is how long until the earliest delayed request is due.
func (s *scheduler) untilDueLocked() (time.Duration, bool) {
	if len(s.timers) == 0 {
		return 0, false
	}
	return time.Until(s.timers[0].at), true
}

// done records the outcome of a run of req that next handed out.
func (s *scheduler) done(req Request, res Result, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entries[req]
	if e == nil || e.state != running {
		return
	}
	e.state = idle
	now := time.Now()
	var (
		at      time.Time
		trigger Trigger
		pending bool
	)
	consider := func(when time.Time, t Trigger) {
		if !pending || when.Before(at) {
			at, trigger, pending = when, t, true
		}
	}
	switch {
	case err != nil && !IsTerminal(err):
		e.failures++
		consider(now.Add(s.backoff.delay(e.failures)), Trigger{Kind: TriggerRetry})
		if s.hooks.retried != nil {
			s.hooks.retried()
		}
	case err != nil: // Terminal: the next change retries
		e.failures = 0
	default:
		e.failures = 0
		if res.RequeueAfter > 0 {
			consider(now.Add(res.RequeueAfter), Trigger{Kind: TriggerRequeue})
		}
	}
	e.prio = live
	if e.again {
		consider(e.againAt, e.againTrigger)
		e.prio = e.againPrio
		e.again = false
	}
	if !pending || s.shutdown {
		delete(s.entries, req)
		return
	}
	e.trigger = trigger
	s.scheduleLocked(e, at)
}

// delay is the wait before the retry after n consecutive failures.
func (b Backoff) delay(n int) time.Duration {
	d := b.Base
	for i := 1; i < n && d < b.Max; i++ {
		d *= 2
	}
	return min(d, b.Max)
}

// orDefault is b, or DefaultBackoff for the zero value; a zero Max is
// DefaultBackoff's.
func (b Backoff) orDefault() Backoff {
	if b.Base <= 0 {
		b.Base = DefaultBackoff.Base
	}
	if b.Max <= 0 {
		b.Max = DefaultBackoff.Max
	}
	b.Max = max(b.Max, b.Base)
	return b
}

// shutdownNow makes next hand out nothing more and wakes its waiters.
func (s *scheduler) shutdownNow() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.shutdown {
		s.shutdown = true
		close(s.stop)
		s.countLocked(live, -s.ready[live]) // dropped
		s.countLocked(backlog, -s.ready[backlog])
	}
}

// size is the number of requests the scheduler knows (for tests).
func (s *scheduler) size() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.entries)
}

// timerHeap holds the delayed entries, earliest first; each entry knows
// its place (entry.timer), so that a new time moves it and readiness takes
// it out: the heap holds each delayed request once, whatever the churn.
type timerHeap []*entry

func (h timerHeap) Len() int           { return len(h) }
func (h timerHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h timerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].timer, h[j].timer = i, j
}
func (h *timerHeap) Push(x any) {
	e := x.(*entry)
	e.timer = len(*h)
	*h = append(*h, e)
}
func (h *timerHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	e.timer = -1
	return e
}
