//go:build linux

package main

import (
	"context"
	"fmt"
	"time"
)

// listCommand is one command of the time-to-initial-state measurement.
type listCommand string

const (
	reflectJSON      listCommand = "kubectl-reflect watch cm -o json"
	reflectStreaming listCommand = "kubectl-reflect watch cm -o json --list-mode=streaming"
	reflectPaged     listCommand = "kubectl-reflect watch cm -o json --list-mode=paged"
	// reflectManaged prints what kubectl prints: managedFields included.
	reflectManaged listCommand = "kubectl-reflect watch cm -o json --show-managed-fields"
	reflectName    listCommand = "kubectl-reflect watch cm -o name"
	// kubectl unthrottled (one LIST, see kubectlGetAll) is the baseline;
	// kubectlJSONThrottled is its default, pages of 500 at 5 requests a
	// second after the first ten.
	kubectlJSON          listCommand = "kubectl get cm -o json --chunk-size=0"
	kubectlJSONThrottled listCommand = "kubectl get cm -o json"
	kubectlName          listCommand = "kubectl get cm -o name --chunk-size=0"
)

// listCommands are the commands each round runs, in this order.
func listCommands() []listCommand {
	return []listCommand{reflectJSON, kubectlJSON, kubectlJSONThrottled, reflectStreaming, reflectPaged, reflectManaged, reflectName, kubectlName}
}

// listSample is one run of a listCommand.
type listSample struct {
	elapsed time.Duration // kubectl-reflect: to the N-th line; kubectl: to its exit
	mem     memory        // kubectl-reflect: at the N-th line; kubectl: the largest seen while it ran
	maxRSS  int64         // peak RSS from rusage once it exited (kubectl-reflect: once killed)
}

type initialResult struct {
	samples map[listCommand][]listSample
}

// warmUp fills the discovery cache both tools share (KUBECACHEDIR) and runs
// one small watch and get, so that no measured run pays first-run costs.
func warmUp(ctx context.Context, e *env) error {
	e.logf("warming up")
	runs := [][]string{{e.tools.reflect, "watch", "cm", objectName(0), "--max-events", "1", "-o", "name"}}
	if e.hasKubectl() {
		runs = append(runs, []string{e.tools.kubectl, "get", "cm", objectName(0), "-o", "name"})
	}
	for _, r := range runs {
		c, err := e.procs.start(ctx, newCounter(ndjson), r[0], e.args(r[1:]...)...)
		if err != nil {
			return err
		}
		if err := c.wait(ctx, e.cfg.wait); err != nil {
			return fmt.Errorf("warm up: %w", err)
		}
	}
	return nil
}

// measureInitial times, cfg.repeat times each, how long kubectl-reflect
// takes to print the last of the initial objects and how long kubectl get
// takes to print them all. The commands take turns so that drift on the
// machine spreads over all of them; every other round runs them in reverse.
func measureInitial(ctx context.Context, e *env) (initialResult, error) {
	r := initialResult{samples: map[listCommand][]listSample{}}
	for round := range e.cfg.repeat {
		for _, cmd := range firstInRound(round, listCommands()) {
			var s listSample
			var err error
			switch cmd {
			case reflectJSON:
				s, err = timeReflect(ctx, e, "-o", "json")
			case reflectStreaming:
				s, err = timeReflect(ctx, e, "-o", "json", "--list-mode=streaming")
			case reflectPaged:
				s, err = timeReflect(ctx, e, "-o", "json", "--list-mode=paged")
			case reflectManaged:
				s, err = timeReflect(ctx, e, "-o", "json", "--show-managed-fields")
			case reflectName:
				s, err = timeReflect(ctx, e, "-o", "name")
			case kubectlJSON:
				s, err = timeKubectl(ctx, e, "json", "--chunk-size=0")
			case kubectlJSONThrottled:
				s, err = timeKubectl(ctx, e, "json")
			case kubectlName:
				s, err = timeKubectl(ctx, e, "name", "--chunk-size=0")
			}
			if err != nil {
				return r, fmt.Errorf("%s: %w", cmd, err)
			}
			if s == (listSample{}) {
				continue // no kubectl
			}
			r.samples[cmd] = append(r.samples[cmd], s)
			e.logf("round %d/%d: %s: %s, %.1f MiB peak RSS", round+1, e.cfg.repeat, cmd,
				s.elapsed.Round(time.Millisecond), mib(s.mem.peak()))
		}
	}
	return r, nil
}

// timeReflect runs `kubectl-reflect watch cm` with args and stops the clock
// when it printed one line per object; then it reads its memory and kills it.
func timeReflect(ctx context.Context, e *env, args ...string) (listSample, error) {
	out := newCounter(ndjson)
	all := out.expect(e.cfg.objects)
	start := time.Now()
	c, err := e.procs.start(ctx, out, e.tools.reflect, e.args(append([]string{"watch", "cm"}, args...)...)...)
	if err != nil {
		return listSample{}, err
	}
	defer c.kill()
	last, err := all.wait(ctx, e.cfg.wait, c.done)
	if err != nil {
		return listSample{}, c.failure(err)
	}
	s := listSample{elapsed: last.Sub(start)}
	if s.mem, err = readMemory(c.pid()); err != nil {
		return listSample{}, err
	}
	c.kill()
	s.maxRSS = maxRSS(c.cmd)
	return s, nil
}

// timeKubectl runs `kubectl get cm -o format` with extra to completion,
// reading all of its output, and samples its memory every 20ms while it
// runs.
func timeKubectl(ctx context.Context, e *env, format string, extra ...string) (listSample, error) {
	if !e.hasKubectl() {
		return listSample{}, nil
	}
	out := newCounter(ndjson)
	start := time.Now()
	c, err := e.procs.start(ctx, out, e.tools.kubectl, e.args(append([]string{"get", "cm", "-o", format}, extra...)...)...)
	if err != nil {
		return listSample{}, err
	}
	defer c.kill()
	peak := c.samplePeak()
	err = c.wait(ctx, e.cfg.wait)
	elapsed := time.Since(start)
	if err != nil {
		return listSample{}, err
	}
	records, n := out.counts()
	switch {
	case format == "name" && records != e.cfg.objects:
		return listSample{}, fmt.Errorf("printed %d names, want %d", records, e.cfg.objects)
	case format == "json" && n < int64(e.cfg.objects*e.cfg.size):
		return listSample{}, fmt.Errorf("printed only %d bytes for %d objects", n, e.cfg.objects)
	}
	return listSample{elapsed: elapsed, mem: memory{hwm: peak()}, maxRSS: maxRSS(c.cmd)}, nil
}
