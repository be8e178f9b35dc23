//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// serveCommand is one command of the serve part's get measurement.
type serveCommand string

const (
	// reflectGetDaemon finds the daemon (same identity, same
	// XDG_RUNTIME_DIR) and reads the ConfigMaps from it.
	reflectGetDaemon serveCommand = "kubectl-reflect get cm -A (warm daemon)"
	// kubectlGetServer is the baseline: kubectl at the API server,
	// unthrottled (one LIST, see kubectlGetAll).
	kubectlGetServer serveCommand = "kubectl get cm -A --chunk-size=0 (API server)"
	// kubectlGetServerThrottled is kubectl's default at the API server:
	// pages of 500 at 5 requests a second after the first ten.
	kubectlGetServerThrottled serveCommand = "kubectl get cm -A (API server)"
	// kubectlGetDaemon is plain kubectl with the daemon's kubeconfig.
	kubectlGetDaemon serveCommand = "kubectl get cm -A (daemon's kubeconfig)"
)

// serveCommands are the commands each round runs, in this order.
func serveCommands() []serveCommand {
	return []serveCommand{reflectGetDaemon, kubectlGetServer, kubectlGetServerThrottled, kubectlGetDaemon}
}

// serveResult is the serve part: `kubectl reflect serve cm` started once,
// gets through it against gets at the API server, then the fan-out rounds.
type serveResult struct {
	get map[serveCommand][]getSample // cfg.repeat each
	// serverLists are the LISTs of ConfigMaps the API server answered
	// while kubectl-reflect get ran through the daemon (0 expected).
	serverLists int
	// watchesDaemonOnly are the API server's WATCHes of ConfigMaps the
	// daemon added alone (1 expected).
	watchesDaemonOnly int
	fanout            fanoutResult
}

// serveEnv is the environment of the serve part's commands: a runtime
// directory of its own, where the daemon writes its files and
// kubectl-reflect finds them.
func serveEnv(e *env) (*env, func(), error) {
	dir, err := os.MkdirTemp("", "kubectl-reflect-bench-run-")
	if err != nil {
		return nil, nil, fmt.Errorf("create runtime dir: %w", err)
	}
	se := *e
	se.procs = newProcs(append(append([]string{}, e.procs.env...), "XDG_RUNTIME_DIR="+dir))
	return &se, func() {
		se.procs.killAll()
		os.RemoveAll(dir)
	}, nil
}

// measureServe starts the daemon, times the gets through it and at the API
// server and stops it, then runs the fan-out rounds (measureFanout).
func measureServe(ctx context.Context, e *env) (serveResult, error) {
	r := serveResult{get: map[serveCommand][]getSample{}}
	se, cleanup, err := serveEnv(e)
	if err != nil {
		return r, err
	}
	defer cleanup()
	before, err := apiserverWatches(ctx, e)
	if err != nil {
		return r, err
	}
	d, err := startDaemon(ctx, se)
	if err != nil {
		return r, err
	}
	defer d.c.kill()
	withDaemon, err := apiserverWatches(ctx, e)
	if err != nil {
		return r, err
	}
	r.watchesDaemonOnly = withDaemon - before
	if err := measureServeGets(ctx, se, d, &r); err != nil {
		return r, err
	}
	if !d.c.stop(10 * time.Second) {
		e.logf("the daemon did not exit within 10s of SIGTERM and was killed")
	}
	if r.fanout, err = measureFanout(ctx, se, before); err != nil {
		return r, fmt.Errorf("fan-out: %w", err)
	}
	return r, nil
}

// daemon is the running `kubectl reflect serve cm`.
type daemon struct {
	c          *child
	kubeconfig string // the one it wrote for itself
}

// startDaemon starts `serve cm` (and extra flags) and waits until it serves: it prints the
// path of its kubeconfig once its reflectors synced and it listens.
func startDaemon(ctx context.Context, e *env, extra ...string) (*daemon, error) {
	return startServe(ctx, e, "cm", extra...)
}

// startServe is startDaemon of `serve KINDS`.
func startServe(ctx context.Context, e *env, kinds string, extra ...string) (*daemon, error) {
	e.logf("starting kubectl-reflect serve %s %v", kinds, extra)
	start := time.Now()
	args := append([]string{"serve", kinds, "--kubeconfig", e.kubeconfig}, extra...)
	if e.cfg.serveprofile != "" {
		args = append(args, "--profile", "cpu", "--profile-output", e.cfg.serveprofile)
	}
	c, err := e.procs.start(ctx, io.Discard, e.tools.reflect, args...)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(e.cfg.wait)
	for {
		if path, ok := servedKubeconfig(c.stderr.String()); ok {
			e.logf("the daemon serves after %s; kubeconfig %s", time.Since(start).Round(time.Millisecond), path)
			return &daemon{c: c, kubeconfig: path}, nil
		}
		select {
		case <-c.done:
			return nil, c.failure(errors.New("exited before serving"))
		default:
		}
		if time.Now().After(deadline) {
			c.kill()
			return nil, c.failure(fmt.Errorf("not serving after %s", e.cfg.wait))
		}
		if err := sleep(ctx, 50*time.Millisecond); err != nil {
			return nil, err
		}
	}
}

// servedKubeconfig finds the path serve prints once it serves:
// "kubeconfig: PATH\n".
func servedKubeconfig(stderr string) (string, bool) {
	_, after, ok := strings.Cut(stderr, "kubeconfig: ")
	if !ok {
		return "", false
	}
	path, _, ok := strings.Cut(after, "\n")
	if !ok || path == "" {
		return "", false
	}
	return path, true
}

// measureServeGets runs each serve command once to warm discovery caches,
// then cfg.repeat times, taking turns (in reverse every other round),
// timing each to its exit.
func measureServeGets(ctx context.Context, e *env, d *daemon, r *serveResult) error {
	for round := -1; round < e.cfg.repeat; round++ { // round -1 warms up
		for _, cmd := range firstInRound(max(round, 0), serveCommands()) {
			path, args := e.serveArgs(cmd, d)
			if path == "" {
				continue // no kubectl
			}
			lists, err := apiserverLists(ctx, e)
			if err != nil {
				return err
			}
			s, err := timeToExit(ctx, e, path, args)
			if err == nil && s.lines < e.cfg.objects+1 {
				err = fmt.Errorf("printed %d lines, want a header and at least %d rows", s.lines, e.cfg.objects)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", cmd, err)
			}
			if round < 0 {
				continue
			}
			if cmd == reflectGetDaemon {
				after, err := apiserverLists(ctx, e)
				if err != nil {
					return err
				}
				r.serverLists += after - lists
			}
			r.get[cmd] = append(r.get[cmd], s)
			e.logf("round %d/%d: %s: %s, %d lines, %.1f MiB peak RSS", round+1, e.cfg.repeat, cmd,
				s.elapsed.Round(time.Millisecond), s.lines, mib(s.hwm))
		}
	}
	return nil
}

// serveArgs is the binary and arguments of cmd; no binary without kubectl.
func (e *env) serveArgs(cmd serveCommand, d *daemon) (string, []string) {
	switch cmd {
	case reflectGetDaemon:
		return e.tools.reflect, []string{"get", "cm", "-A", "--kubeconfig", e.kubeconfig}
	case kubectlGetServer:
		return e.tools.kubectl, []string{"get", "cm", "-A", "--chunk-size=0", "--kubeconfig", e.kubeconfig}
	case kubectlGetServerThrottled:
		return e.tools.kubectl, []string{"get", "cm", "-A", "--kubeconfig", e.kubeconfig}
	case kubectlGetDaemon:
		return e.tools.kubectl, []string{"get", "cm", "-A", "--kubeconfig", d.kubeconfig}
	}
	return "", nil
}
