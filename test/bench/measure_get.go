//go:build linux

package main

import (
	"context"
	"fmt"
	"time"
)

// getCommand is one command of the get measurement.
type getCommand string

const (
	reflectGetAll getCommand = "kubectl-reflect get cm -A"
	// kubectlGetAll is kubectl unthrottled, the headline baseline: one LIST
	// rather than pages of 500. kubectl 1.37 has no flag, kubeconfig field
	// or variable that lifts client-go's rate limit (5 requests a second
	// after a burst of 10; cli-runtime raises it for discovery only), so
	// one request is how it runs without it.
	kubectlGetAll getCommand = "kubectl get cm -A --chunk-size=0"
	// kubectlGetAllThrottled is kubectl as a user runs it: pages of 500,
	// spaced 200 ms apart by its rate limit after the first ten.
	kubectlGetAllThrottled getCommand = "kubectl get cm -A"
	// The other list modes, for reference.
	reflectGetAllStreaming getCommand = "kubectl-reflect get cm -A --list-mode=streaming"
	reflectGetAllPaged     getCommand = "kubectl-reflect get cm -A --list-mode=paged"
	reflectGetJSON         getCommand = "kubectl-reflect get cm -n NS -o json"
	kubectlGetJSON         getCommand = "kubectl get cm -n NS -o json --chunk-size=0"
)

// getCommands are the commands each round runs, in this order.
func getCommands() []getCommand {
	return []getCommand{reflectGetAll, kubectlGetAll, kubectlGetAllThrottled, reflectGetAllStreaming, reflectGetAllPaged,
		reflectGetJSON, kubectlGetJSON}
}

// getSample is one run of a getCommand, started cold: a new process.
type getSample struct {
	elapsed time.Duration // from start to exit, all of stdout read
	lines   int           // lines printed
	bytes   int64         // bytes printed
	hwm     int64         // peak RSS (VmHWM), read every 20 ms while it ran
	cpu     time.Duration // user+system CPU of the process (a shell: its children's too)
}

type getResult struct {
	samples map[getCommand][]getSample
}

// measureGet runs each get command cfg.repeat times, taking turns (the
// order reversed every other round), and times each to its exit.
func measureGet(ctx context.Context, e *env) (getResult, error) {
	r := getResult{samples: map[getCommand][]getSample{}}
	for round := range e.cfg.repeat {
		for _, cmd := range firstInRound(round, getCommands()) {
			path, args := e.getArgs(cmd)
			if path == "" {
				continue // no kubectl
			}
			s, err := timeToExit(ctx, e, path, args)
			if err == nil {
				err = checkGet(e, cmd, s)
			}
			if err != nil {
				return r, fmt.Errorf("%s: %w", cmd, err)
			}
			r.samples[cmd] = append(r.samples[cmd], s)
			e.logf("round %d/%d: %s: %s, %d lines, %.1f MiB printed, %.1f MiB peak RSS", round+1, e.cfg.repeat, cmd,
				s.elapsed.Round(time.Millisecond), s.lines, mib(s.bytes), mib(s.hwm))
		}
	}
	return r, nil
}

// getArgs is the binary and arguments of cmd; no binary without kubectl.
func (e *env) getArgs(cmd getCommand) (string, []string) {
	all := []string{"get", "cm", "-A", "--kubeconfig", e.kubeconfig}
	json := e.args("get", "cm", "-o", "json")
	switch cmd {
	case reflectGetAll:
		return e.tools.reflect, all
	case kubectlGetAll:
		return e.tools.kubectl, append(all, "--chunk-size=0")
	case kubectlGetAllThrottled:
		return e.tools.kubectl, all
	case reflectGetAllStreaming:
		return e.tools.reflect, append(all, "--list-mode=streaming")
	case reflectGetAllPaged:
		return e.tools.reflect, append(all, "--list-mode=paged")
	case reflectGetJSON:
		return e.tools.reflect, json
	case kubectlGetJSON:
		return e.tools.kubectl, append(json, "--chunk-size=0")
	}
	return "", nil
}

// timeToExit runs path with args to completion, reading all of its output,
// and reads its peak RSS every 20 ms while it runs. (Not rusage's maxrss:
// that starts at the benchmark's own peak RSS.)
func timeToExit(ctx context.Context, e *env, path string, args []string) (getSample, error) {
	out := newCounter(ndjson)
	start := time.Now()
	c, err := e.procs.start(ctx, out, path, args...)
	if err != nil {
		return getSample{}, err
	}
	peak := c.samplePeak()
	err = c.wait(ctx, e.cfg.wait) // exec has copied all of stdout once it returns
	elapsed := time.Since(start)
	if err != nil {
		return getSample{}, err
	}
	lines, n := out.counts()
	return getSample{elapsed: elapsed, lines: lines, bytes: n, hwm: peak(), cpu: c.cpuTime()}, nil
}

// checkGet makes sure a command printed every object: a table row each
// (other namespaces may add some), or their data in JSON.
func checkGet(e *env, cmd getCommand, s getSample) error {
	switch cmd {
	case reflectGetAll, kubectlGetAll, kubectlGetAllThrottled, reflectGetAllStreaming, reflectGetAllPaged:
		if s.lines < e.cfg.objects+1 {
			return fmt.Errorf("printed %d lines, want a header and at least %d rows", s.lines, e.cfg.objects)
		}
	case reflectGetJSON, kubectlGetJSON:
		if s.bytes < int64(e.cfg.objects*e.cfg.size) {
			return fmt.Errorf("printed only %d bytes for %d objects", s.bytes, e.cfg.objects)
		}
	}
	return nil
}
