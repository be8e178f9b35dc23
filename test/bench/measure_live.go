//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
)

// liveResult is the CPU-per-event measurement: the same updates seen by
// kubectl-reflect, by kubectl-reflect over HTTP/2 (what the choice of
// HTTP/1.1 saves) and, when there is one, kubectl, cfg.repeat times.
type liveResult struct {
	events  int          // per round
	reflect []liveSample // one per round
	http2   []liveSample // one per round: kubectl-reflect with kube.HTTP2Env set
	// managed is kubectl-reflect with --show-managed-fields: the fields
	// kubectl's watch events print, managedFields included.
	managed []liveSample // one per round
	kubectl []liveSample // one per round; empty without kubectl
}

// liveSample is what one watcher spent on one round of live events.
type liveSample struct {
	cpu           time.Duration // user+system CPU from ready to exit
	cpuBeforeStop time.Duration // the part of cpu before SIGTERM, to the clock tick
	delivered     time.Duration // from the first update to the last event printed
	bytes         int64         // printed for the events
	extra         int           // records beyond the sentinels and the events (0 expected)
	mem           memory        // just before it was stopped
	cleanExit     bool          // it exited on SIGTERM
}

// liveWatcher is one watching command of the measurement.
type liveWatcher struct {
	name      string
	c         *child
	out       *counter
	cpu0      time.Duration // CPU time once ready
	base      int           // records once ready (the sentinel's)
	baseBytes int64         // bytes printed once ready
}

// measureLive runs cfg.repeat rounds of liveRound.
func measureLive(ctx context.Context, e *env) (liveResult, error) {
	r := liveResult{events: e.cfg.events}
	for round := range e.cfg.repeat {
		samples, err := liveRound(ctx, e, round)
		if err != nil {
			return r, fmt.Errorf("live events, round %d: %w", round+1, err)
		}
		r.reflect = append(r.reflect, samples[0])
		r.http2 = append(r.http2, samples[1])
		r.managed = append(r.managed, samples[2])
		if len(samples) > 3 {
			r.kubectl = append(r.kubectl, samples[3])
		}
	}
	return r, nil
}

// liveRound starts the watchers, waits until each sees changes, then makes
// cfg.events updates and measures the CPU each watcher spent on them. Every
// update writes a value never written before, so none is a no-op that the
// server would not send.
func liveRound(ctx context.Context, e *env, round int) ([]liveSample, error) {
	ws, err := startWatchers(ctx, e)
	for _, w := range ws {
		defer w.c.kill()
	}
	if err != nil {
		return nil, err
	}
	if err := waitWatching(ctx, e, ws, round); err != nil {
		return nil, err
	}
	all := make([]*expectation, len(ws))
	for i, w := range ws {
		if w.cpu0, err = readCPU(w.c.pid()); err != nil {
			return nil, err
		}
		w.base, w.baseBytes = w.out.counts()
		all[i] = w.out.expect(w.base + e.cfg.events)
	}

	e.logf("round %d/%d: updating %d ConfigMaps", round+1, e.cfg.repeat, e.cfg.events)
	start := time.Now()
	n := e.cfg.objects - 1 // object 0 is the sentinel
	err = parallel(ctx, e.cfg.workers, e.cfg.events, func(ctx context.Context, k int) error {
		return e.clients.touch(ctx, e.namespace, 1+k%n, strconv.Itoa(round*e.cfg.events+k))
	})
	if err != nil {
		return nil, err
	}
	samples := make([]liveSample, len(ws))
	for i, w := range ws {
		last, err := all[i].wait(ctx, e.cfg.wait, w.c.done)
		if err != nil {
			return nil, w.c.failure(err)
		}
		samples[i].delivered = last.Sub(start)
	}
	time.Sleep(500 * time.Millisecond) // let any extra record show
	for i, w := range ws {
		s := &samples[i]
		got, n := w.out.counts()
		s.extra = got - w.base - e.cfg.events
		s.bytes = n - w.baseBytes
		if s.mem, err = readMemory(w.c.pid()); err != nil {
			return nil, err
		}
		if s.cpuBeforeStop, err = readCPU(w.c.pid()); err != nil {
			return nil, err
		}
		s.cleanExit = w.c.stop(10 * time.Second)
		s.cpu = w.c.cpuTime() - w.cpu0
		s.cpuBeforeStop -= w.cpu0
		e.logf("round %d/%d: %s: %d events printed in %s; %.3f ms CPU per event (%s of %s before SIGTERM)",
			round+1, e.cfg.repeat, w.name, e.cfg.events, s.delivered.Round(time.Millisecond),
			perEvent(s.cpu, e.cfg.events), s.cpuBeforeStop, s.cpu.Round(time.Millisecond))
	}
	return samples, nil
}

// startWatchers starts kubectl-reflect, kubectl-reflect over HTTP/2,
// kubectl-reflect with managedFields and kubectl (if any) watching the namespace's ConfigMaps, changes only, as
// JSON events.
func startWatchers(ctx context.Context, e *env) ([]*liveWatcher, error) {
	type spec struct {
		name, path string
		args       []string
		framing    framing
		env        []string
	}
	ours := []string{"watch", "cm", "--watch-only", "-o", "json"}
	specs := []spec{
		{"kubectl-reflect", e.tools.reflect, ours, ndjson, nil},
		{"kubectl-reflect over HTTP/2", e.tools.reflect, ours, ndjson, []string{kube.HTTP2Env + "=1"}},
		{"kubectl-reflect --show-managed-fields", e.tools.reflect, append(slices.Clip(ours), "--show-managed-fields"), ndjson, nil},
	}
	if e.hasKubectl() {
		specs = append(specs, spec{"kubectl", e.tools.kubectl,
			[]string{"get", "cm", "-w", "--watch-only", "--output-watch-events", "-o", "json"}, jsonValues, nil})
	}
	var ws []*liveWatcher
	for _, s := range specs {
		out := newCounter(s.framing)
		c, err := e.procs.startWith(ctx, s.env, out, s.path, e.args(s.args...)...)
		if err != nil {
			return ws, err
		}
		ws = append(ws, &liveWatcher{name: s.name, c: c, out: out})
	}
	return ws, nil
}

// waitWatching updates the sentinel until every watcher printed an event,
// then waits until their output has been quiet for a second.
func waitWatching(ctx context.Context, e *env, ws []*liveWatcher, round int) error {
	e.logf("waiting until the watchers watch")
	deadline := time.Now().Add(e.cfg.wait)
	for rev := 1; ; rev++ {
		var waiting *liveWatcher
		for _, w := range ws {
			select {
			case <-w.c.done:
				return w.c.failure(errors.New("exited before watching"))
			default:
			}
			if got, _ := w.out.counts(); got == 0 {
				waiting = w
			}
		}
		if waiting == nil {
			break
		}
		if time.Now().After(deadline) {
			return waiting.c.failure(fmt.Errorf("printed no event in %s of updates", e.cfg.wait))
		}
		if err := e.clients.touch(ctx, e.namespace, 0, fmt.Sprintf("sentinel-%d-%d", round, rev)); err != nil {
			return err
		}
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
	last, quiet := snapshot(ws), 0
	for quiet < 10 {
		if err := sleep(ctx, 100*time.Millisecond); err != nil {
			return err
		}
		now := snapshot(ws)
		if now == last {
			quiet++
		} else {
			last, quiet = now, 0
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("watchers still printing after %s", e.cfg.wait)
		}
	}
	return nil
}

// snapshot is the bytes every watcher printed so far, as a comparable key.
func snapshot(ws []*liveWatcher) string {
	s := ""
	for _, w := range ws {
		_, n := w.out.counts()
		s += fmt.Sprint(n, " ")
	}
	return s
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
