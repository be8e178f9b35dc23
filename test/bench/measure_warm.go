//go:build linux

package main

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// warmChanges are the ConfigMaps changed while no daemon runs, before
// each start of the restart rows: a restart has to catch up with them.
const warmChanges = 200

// warmRound times, taking turns, a daemon started on the history a
// recording daemon left (`serve cm --record`: its stores from the file,
// its watch resumed) and one that lists afresh (`serve cm`). Before each
// start, with no daemon running, warmChanges ConfigMaps and then the
// sentinel are changed; each is timed from the start of its process to
// the moment it serves the sentinel's last change, and with it every
// change before it (a watch delivers in order): its served state is the
// API server's. A warm start that the API server refused (a relist) is an
// error, not a sample.
func (he *historyEnv) warmRound(ctx context.Context, r *historyResult, round int) error {
	for _, warm := range firstInRound(round, []bool{true, false}) {
		var extra []string
		if warm {
			extra = []string{"--record"}
		}
		rv, err := he.changeWhileDown(ctx, round, warm)
		if err != nil {
			return err
		}
		start := time.Now()
		d, err := startDaemon(ctx, he.env, extra...)
		if err != nil {
			return err
		}
		serving := time.Since(start)
		err = he.reached(ctx, d, rv, false)
		current := time.Since(start)
		if err == nil {
			err = he.checkWarm(ctx, d, round, warm)
		}
		he.stopDaemon(d)
		if err != nil {
			return err
		}
		if warm {
			r.warm, r.warmServing = append(r.warm, current.Seconds()), append(r.warmServing, serving.Seconds())
		} else {
			r.cold, r.coldServing = append(r.cold, current.Seconds()), append(r.coldServing, serving.Seconds())
		}
		he.logf("history: restart round %d/%d, warm %v: serving after %s, the API server's state after %s",
			round+1, he.cfg.repeat, warm, serving.Round(time.Millisecond), current.Round(time.Millisecond))
	}
	return nil
}

// changeWhileDown changes warmChanges ConfigMaps, then the sentinel, and
// returns the sentinel's resourceVersion: the API server's state once a
// daemon has it.
func (he *historyEnv) changeWhileDown(ctx context.Context, round int, warm bool) (string, error) {
	n := min(warmChanges, he.cfg.objects-1)
	value := fmt.Sprintf("down-%d-%t", round, warm)
	err := parallel(ctx, he.cfg.workers, n, func(ctx context.Context, k int) error {
		_, err := he.patch(ctx, objectName(1+k), map[string]string{"down": value})
		return err
	})
	if err != nil {
		return "", err
	}
	return he.touchSentinel(ctx, value)
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
		return fmt.Errorf("the warm daemon relisted configmaps: the API server no longer held where its history ends:\n%s", d.c.stderr.String())
	}
	return nil
}
