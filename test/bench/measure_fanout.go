//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// fanoutClients is how many watch clients a fan-out round runs.
const fanoutClients = 10

// fanoutRate is the updates per second a fan-out round makes: a rate both
// sides reach on the 2-core machine (at 1,000 a second the benchmark's
// writers made 413-456, and the lag measured the writers' queue). The rate
// reached is printed with the figures.
const fanoutRate = 200

// fanoutSeconds bounds a round's updates: at most this many seconds of
// them at fanoutRate.
const fanoutSeconds = 10

// fanoutWriters are at least this many parallel writers: enough calls in
// flight for fanoutRate when each takes up to 100 ms, as on a busy machine.
const fanoutWriters = fanoutRate / 10

// fanoutResult is the fan-out measurement: cfg.repeat rounds of ten
// watchers through a daemon started for the round and cfg.repeat rounds of
// ten plain kubectl watchers at the API server, taking turns.
type fanoutResult struct {
	updates int            // per round, each of another ConfigMap
	daemon  []fanoutSample // one per round
	plain   []fanoutSample // one per round; empty without kubectl
}

// fanoutSample is one round.
type fanoutSample struct {
	// watches are the API server's WATCHes of ConfigMaps that the round
	// added to those open before the daemon started: the daemon's and its
	// clients' (1 expected), or the plain watchers' (10).
	watches int
	rate    float64 // updates per second made
	// lags are, for each client's each update, from the update call's
	// start (the send) to the row, sorted; never clamped: a row cannot
	// come before its update was sent.
	lags           []time.Duration
	missed         int   // updates some client never printed
	early          int   // rows printed before the update call returned (the API server committed, answered later)
	rss            int64 // VmRSS summed over the daemon and the clients
	hwm            int64 // VmHWM summed likewise
	daemon         int64 // the daemon's part of rss
	reflectClients int64 // the kubectl-reflect watchers' part of rss
}

// fanoutClient is one watch client of a round.
type fanoutClient struct {
	c       *child
	out     *lineTimes
	reflect bool // kubectl-reflect, not kubectl
}

// measureFanout runs cfg.repeat rounds through a daemon and as many of
// plain kubectl, taking turns (which goes first alternates); before is the
// API server's ConfigMap WATCHes with no daemon running.
func measureFanout(ctx context.Context, e *env, before int) (fanoutResult, error) {
	r := fanoutResult{updates: min(e.cfg.events, e.cfg.objects-1, fanoutSeconds*fanoutRate)}
	sides := []bool{true, false} // through a daemon, plain
	if !e.hasKubectl() {
		sides = sides[:1]
	}
	for round := range e.cfg.repeat {
		for _, throughDaemon := range firstInRound(round, sides) {
			if !throughDaemon {
				s, err := fanoutRound(ctx, e, nil, 2*round+1, before, r.updates)
				if err != nil {
					return r, fmt.Errorf("plain kubectl, round %d: %w", round+1, err)
				}
				r.plain = append(r.plain, s)
				continue
			}
			s, err := daemonFanoutRound(ctx, e, 2*round, before, r.updates)
			if err != nil {
				return r, fmt.Errorf("through the daemon, round %d: %w", round+1, err)
			}
			r.daemon = append(r.daemon, s)
		}
	}
	return r, nil
}

// daemonFanoutRound starts a daemon, runs a round through it and stops it:
// the plain rounds run with no daemon watching beside them.
func daemonFanoutRound(ctx context.Context, e *env, round, before, updates int) (fanoutSample, error) {
	d, err := startDaemon(ctx, e)
	if err != nil {
		return fanoutSample{}, err
	}
	defer d.c.kill()
	s, err := fanoutRound(ctx, e, d, round, before, updates)
	if !d.c.stop(10 * time.Second) {
		e.logf("the daemon did not exit within 10s of SIGTERM and was killed")
	}
	return s, err
}

// fanoutCommands are the ten watchers of a round: through d, five
// `kubectl-reflect watch cm -A` and five `kubectl get cm -A -w` with d's
// kubeconfig (ten kubectl-reflect without kubectl); with no d, ten
// `kubectl get cm -A -w` at the API server.
func (e *env) fanoutCommands(d *daemon) [][]string {
	kubectlWatch := func(kubeconfig string) []string {
		return []string{e.tools.kubectl, "get", "cm", "-A", "-w", "--kubeconfig", kubeconfig}
	}
	var cmds [][]string
	for i := range fanoutClients {
		switch {
		case d == nil:
			cmds = append(cmds, kubectlWatch(e.kubeconfig))
		case i%2 == 0 || !e.hasKubectl():
			cmds = append(cmds, []string{e.tools.reflect, "watch", "cm", "-A", "--kubeconfig", e.kubeconfig})
		default:
			cmds = append(cmds, kubectlWatch(d.kubeconfig))
		}
	}
	return cmds
}

// fanoutRound starts the ten watchers, waits until each printed its initial
// list and then a change, counts the API server's WATCHes, makes updates
// updates at fanoutRate a second, each to another ConfigMap, and takes the
// time from each update call to each watcher's row of it.
func fanoutRound(ctx context.Context, e *env, d *daemon, round, before, updates int) (fanoutSample, error) {
	var s fanoutSample
	var cs []*fanoutClient
	defer func() {
		for _, c := range cs {
			c.c.kill()
		}
	}()
	for _, cmd := range e.fanoutCommands(d) {
		out := newLineTimes()
		c, err := e.procs.start(ctx, out, cmd[0], cmd[1:]...)
		if err != nil {
			return s, err
		}
		cs = append(cs, &fanoutClient{c: c, out: out, reflect: cmd[0] == e.tools.reflect})
	}
	if err := waitFanoutWatching(ctx, e, cs, round); err != nil {
		return s, err
	}
	watches, err := apiserverWatches(ctx, e)
	if err != nil {
		return s, err
	}
	s.watches = watches - before

	track := func(name string) bool { return strings.HasPrefix(name, "bench-") && name != objectName(0) }
	reached := make([]<-chan struct{}, len(cs))
	for i, c := range cs {
		reached[i] = c.out.arm(track, updates)
	}
	e.logf("fan-out round %d: %d updates at %d/s", round+1, updates, fanoutRate)
	calls, err := pacedUpdates(ctx, e, round, updates)
	if err != nil {
		return s, err
	}
	s.rate = calls.rate()
	for i, c := range cs {
		if err := waitClosed(ctx, reached[i], c.c.done, e.cfg.wait); err != nil {
			s.missed += updates - len(c.out.times()) // reported; the round goes on
			e.logf("fan-out round %d: %s: %v", round+1, c.c.name, err)
		}
	}
	var seen []map[string]time.Time
	for _, c := range cs {
		seen = append(seen, c.out.times())
	}
	s.lags = eventLags(calls.sent, seen)
	s.early = earlyRows(calls.returned, seen)
	if err := s.readMemory(d, cs); err != nil {
		return s, err
	}
	e.logf("fan-out round %d: %d WATCHes added at the API server, %.0f updates/s, lag p50 %s p99 %s, %d missed, RSS %.1f MiB (VmHWM %.1f MiB)",
		round+1, s.watches, s.rate, percentile(s.lags, 50), percentile(s.lags, 99), s.missed, mib(s.rss), mib(s.hwm))
	return s, nil
}

// waitFanoutWatching waits until every client printed at least a header
// and a row of each of the benchmark's ConfigMaps, then updates the
// sentinel until every client printed a row of it: its watch is open.
func waitFanoutWatching(ctx context.Context, e *env, cs []*fanoutClient, round int) error {
	deadline := time.Now().Add(e.cfg.wait)
	for _, c := range cs {
		for c.out.count() < e.cfg.objects+1 {
			if err := c.alive(deadline); err != nil {
				return err
			}
			if err := sleep(ctx, 100*time.Millisecond); err != nil {
				return err
			}
		}
	}
	sentinel := objectName(0)
	reached := make([]<-chan struct{}, len(cs))
	for i, c := range cs {
		reached[i] = c.out.arm(func(name string) bool { return name == sentinel }, 1)
	}
	for rev := 1; ; rev++ {
		if err := e.clients.touch(ctx, e.namespace, 0, fmt.Sprintf("fanout-%d-%d", round, rev)); err != nil {
			return err
		}
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return err
		}
		waiting := slices.IndexFunc(reached, func(ch <-chan struct{}) bool { return !isClosed(ch) })
		if waiting < 0 {
			return nil
		}
		if err := cs[waiting].alive(deadline); err != nil {
			return err
		}
	}
}

// alive fails if the client exited or deadline passed.
func (c *fanoutClient) alive(deadline time.Time) error {
	select {
	case <-c.c.done:
		return c.c.failure(errors.New("exited before watching"))
	default:
	}
	if time.Now().After(deadline) {
		return c.c.failure(fmt.Errorf("not watching by the deadline, %d lines printed, the last %q", c.out.count(), c.out.lastLine()))
	}
	return nil
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// waitClosed waits for ch, giving up when ctx ends, after limit, or when
// exited is closed first.
func waitClosed(ctx context.Context, ch <-chan struct{}, exited <-chan struct{}, limit time.Duration) error {
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return fmt.Errorf("not every update printed after %s", limit)
	case <-exited:
		if isClosed(ch) {
			return nil
		}
		return errors.New("exited before printing every update")
	}
}

// updateCalls are when each update call of a round was sent and returned,
// by the name of its ConfigMap.
type updateCalls struct {
	mu             sync.Mutex
	sent, returned map[string]time.Time
}

// rate is the updates per second from the first sent to the last returned.
func (u *updateCalls) rate() float64 {
	var first, last time.Time
	for _, t := range u.sent {
		if first.IsZero() || t.Before(first) {
			first = t
		}
	}
	for _, t := range u.returned {
		if t.After(last) {
			last = t
		}
	}
	if !last.After(first) {
		return 0
	}
	return float64(len(u.returned)) / last.Sub(first).Seconds()
}

// pacedUpdates updates ConfigMaps 1..n once each, the k-th no earlier than
// k/fanoutRate seconds after the first, with cfg.workers writers, at least
// fanoutWriters.
func pacedUpdates(ctx context.Context, e *env, round, n int) (*updateCalls, error) {
	u := &updateCalls{sent: make(map[string]time.Time, n), returned: make(map[string]time.Time, n)}
	start := time.Now()
	err := parallel(ctx, max(e.cfg.workers, fanoutWriters), n, func(ctx context.Context, k int) error {
		if err := sleep(ctx, time.Until(start.Add(time.Duration(k)*time.Second/fanoutRate))); err != nil {
			return err
		}
		name, sent := objectName(1+k), time.Now()
		if err := e.clients.touch(ctx, e.namespace, 1+k, fmt.Sprintf("fanout-%d-%d", round, k)); err != nil {
			return err
		}
		returned := time.Now()
		u.mu.Lock()
		u.sent[name], u.returned[name] = sent, returned
		u.mu.Unlock()
		return nil
	})
	return u, err
}

// eventLags is, for each client's each row of an update, the time from
// the update call's send to the row reaching the benchmark, sorted.
func eventLags(sent map[string]time.Time, seen []map[string]time.Time) []time.Duration {
	var lags []time.Duration
	for _, client := range seen {
		for name, at := range client {
			if start, ok := sent[name]; ok {
				lags = append(lags, at.Sub(start))
			}
		}
	}
	slices.Sort(lags)
	return lags
}

// earlyRows counts the rows that reached the benchmark before their
// update call returned: the API server sends the event once committed,
// its answer to the writer after, so a lag from the return would be
// below zero for them.
func earlyRows(returned map[string]time.Time, seen []map[string]time.Time) int {
	n := 0
	for _, client := range seen {
		for name, at := range client {
			if ret, ok := returned[name]; ok && at.Before(ret) {
				n++
			}
		}
	}
	return n
}

// readMemory reads the VmRSS and VmHWM of the daemon d, if any, and the
// clients: the sums, the daemon's VmRSS and the kubectl-reflect clients'.
func (s *fanoutSample) readMemory(d *daemon, cs []*fanoutClient) error {
	var all, reflect []int
	if d != nil {
		m, err := readMemory(d.c.pid())
		if err != nil {
			return err
		}
		s.daemon = m.rss
		all = append(all, d.c.pid())
	}
	for _, c := range cs {
		all = append(all, c.c.pid())
		if c.reflect {
			reflect = append(reflect, c.c.pid())
		}
	}
	var err error
	if s.reflectClients, _, err = sumMemory(reflect); err != nil {
		return err
	}
	s.rss, s.hwm, err = sumMemory(all)
	return err
}

// sumMemory sums VmRSS and VmHWM over the processes.
func sumMemory(pids []int) (rss, hwm int64, err error) {
	for _, pid := range pids {
		m, err := readMemory(pid)
		if err != nil {
			return 0, 0, err
		}
		rss += m.rss
		hwm += m.hwm
	}
	return rss, hwm, nil
}
