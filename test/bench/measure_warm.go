//go:build linux

package main

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// warmRound times, taking turns, a daemon started on the history a
// recording daemon left (`serve cm --record`: its stores from the file,
// its watch resumed) and one that lists afresh (`serve cm`), each from
// the start of its process to the line that says it serves. A warm start
// that the API server refused (a relist) is an error, not a sample.
func (he *historyEnv) warmRound(ctx context.Context, r *historyResult, round int) error {
	for _, warm := range firstInRound(round, []bool{true, false}) {
		var extra []string
		if warm {
			extra = []string{"--record"}
		}
		start := time.Now()
		d, err := startDaemon(ctx, he.env, extra...)
		if err != nil {
			return err
		}
		ready := time.Since(start)
		err = he.checkWarm(ctx, d, round, warm)
		he.stopDaemon(d)
		if err != nil {
			return err
		}
		if warm {
			r.warm = append(r.warm, ready.Seconds())
		} else {
			r.cold = append(r.cold, ready.Seconds())
		}
		he.logf("history: restart round %d/%d, warm %v: serving after %s", round+1, he.cfg.repeat, warm, ready.Round(time.Millisecond))
	}
	return nil
}

// checkWarm checks that a warm daemon said it restarted from the history
// and, once it has a change made after it started, that it never relisted.
func (he *historyEnv) checkWarm(ctx context.Context, d *daemon, round int, warm bool) error {
	if !warm {
		return nil
	}
	if !strings.Contains(d.c.stderr.String(), "Restored from the history: configmaps at resourceVersion ") {
		return fmt.Errorf("the daemon did not restart warm:\n%s", d.c.stderr.String())
	}
	sentinel, err := he.touchSentinel(ctx, fmt.Sprintf("warm-%d", round))
	if err != nil {
		return err
	}
	if err := he.reached(ctx, d, sentinel, false); err != nil {
		return err
	}
	cs, err := daemonClients(d)
	if err != nil {
		return err
	}
	metrics, err := cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return fmt.Errorf("reading the daemon's metrics: %w", err)
	}
	if !strings.Contains(string(metrics), `kubectl_reflect_serve_relists_total{resource="configmaps"} 0`) {
		return fmt.Errorf("the warm daemon relisted configmaps: the API server no longer held where its history ends")
	}
	return nil
}
