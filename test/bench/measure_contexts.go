//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
)

// contextNames are the clusters of the contexts part, a context each.
var contextNames = []string{"east", "west", "north"}

// contextsCommand is one timed command of the contexts part.
type contextsCommand string

const (
	ctxReflectGet   contextsCommand = "kubectl-reflect get cm -A --context east,west,north"
	ctxKubectlLoop  contextsCommand = "for c in east west north; do kubectl get cm -A --context $c; done"
	ctxDaemonGet    contextsCommand = "kubectl-reflect get cm -A --context east,west,north (warm daemon)"
	ctxDaemonMerged contextsCommand = "kubectl get cm -A --context merged (warm daemon)"
)

// ctxSingle is kubectl-reflect get of one context alone.
func ctxSingle(name string) contextsCommand {
	return contextsCommand("kubectl-reflect get cm -A --context " + name)
}

// contextsResult is the contexts part: gets across three clusters, through
// a daemon serving them, and the CPU per event of a watch across them.
type contextsResult struct {
	perCluster int
	get        map[contextsCommand][]getSample
	// watches are the API server WATCHes of ConfigMaps each cluster serves
	// with the daemon and its clients, less those before the daemon.
	watches []int
	clients int
	multi   []float64 // ms CPU per event, a watch of the three contexts
	single  []float64 // ms CPU per event, a watch of one
}

// measureContexts starts a fleet of three clusters (one etcd), fills a
// namespace of each with -objects ConfigMaps (the get part's -A workload,
// in each cluster), and measures.
func measureContexts(ctx context.Context, e *env) (contextsResult, error) {
	r := contextsResult{perCluster: e.cfg.objects, get: map[contextsCommand][]getSample{}}
	e.logf("contexts: starting a fleet of %s", strings.Join(contextNames, ", "))
	f, err := controlplane.StartFleet(ctx, contextNames, controlplane.Options{NoControllerManager: true, Build: controlplane.BuildOptions{Progress: e.log}})
	if err != nil {
		return r, err
	}
	defer func() {
		if err := f.Stop(); err != nil {
			e.logf("contexts: stop the fleet: %v", err)
		}
	}()
	envs := map[string]*env{}
	for _, name := range contextNames {
		ce := *e
		ce.kubeconfig, ce.namespace = f.Kubeconfig(), "bench"
		if ce.clients, err = newClients(f.Cluster(name).AdminConfig(), e.cfg.workers); err != nil {
			return r, err
		}
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ce.namespace}}
		if _, err := ce.clients.cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
			return r, fmt.Errorf("%s: create namespace: %w", name, err)
		}
		e.logf("contexts: creating %d ConfigMaps in %s", r.perCluster, name)
		if err := createConfigMaps(ctx, &ce, ce.namespace, 0, r.perCluster); err != nil {
			return r, fmt.Errorf("%s: %w", name, err)
		}
		envs[name] = &ce
	}
	fe := envs[contextNames[0]]
	if err := measureContextGets(ctx, fe, &r); err != nil {
		return r, err
	}
	if err := measureContextsDaemon(ctx, fe, envs, &r); err != nil {
		return r, fmt.Errorf("daemon: %w", err)
	}
	if err := measureContextsWatch(ctx, envs, &r); err != nil {
		return r, fmt.Errorf("watch: %w", err)
	}
	return r, nil
}

// contextsArgs is the binary and arguments of cmd (kubeconfig: the
// fleet's, or the daemon's for the merged view).
func (e *env) contextsArgs(cmd contextsCommand, merged string) (string, []string) {
	all := []string{"get", "cm", "-A", "--kubeconfig", e.kubeconfig, "--context"}
	switch cmd {
	case ctxReflectGet, ctxDaemonGet:
		return e.tools.reflect, append(all, strings.Join(contextNames, ","))
	case ctxKubectlLoop:
		return "bash", []string{"-c", `for c in east west north; do "$0" get cm -A --context "$c" --kubeconfig "$1" || exit; done`, e.tools.kubectl, e.kubeconfig}
	case ctxDaemonMerged:
		return e.tools.kubectl, []string{"get", "cm", "-A", "--kubeconfig", merged, "--context", "merged"}
	}
	for _, name := range contextNames {
		if cmd == ctxSingle(name) {
			return e.tools.reflect, append(all, name)
		}
	}
	return "", nil
}

// timeContexts runs cmds once each to warm discovery caches, then
// cfg.repeat times taking turns (in reverse every other round), timing
// each to its exit.
func timeContexts(ctx context.Context, e *env, r *contextsResult, merged string, cmds ...contextsCommand) error {
	for round := range e.cfg.repeat + 1 {
		for _, cmd := range firstInRound(max(round-1, 0), cmds) {
			path, args := e.contextsArgs(cmd, merged)
			s, err := timeToExit(ctx, e, path, args)
			if err == nil && s.lines < r.perCluster {
				err = fmt.Errorf("printed %d lines, want at least %d", s.lines, r.perCluster)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", cmd, err)
			}
			if round == 0 {
				continue // warm-up
			}
			r.get[cmd] = append(r.get[cmd], s)
			e.logf("contexts round %d/%d: %s: %s, %d lines", round, e.cfg.repeat, cmd, s.elapsed.Round(time.Millisecond), s.lines)
		}
	}
	return nil
}

// measureContextGets times get across the contexts, each context alone,
// and kubectl's loop over them.
func measureContextGets(ctx context.Context, e *env, r *contextsResult) error {
	cmds := []contextsCommand{ctxReflectGet}
	for _, name := range contextNames {
		cmds = append(cmds, ctxSingle(name))
	}
	if e.hasKubectl() {
		cmds = append(cmds, ctxKubectlLoop)
	}
	return timeContexts(ctx, e, r, "", cmds...)
}

// measureContextsDaemon starts `serve cm` of the three contexts, times get
// through it, and counts the API servers' WATCHes with clients attached.
func measureContextsDaemon(ctx context.Context, e *env, envs map[string]*env, r *contextsResult) error {
	se, cleanup, err := serveEnv(e)
	if err != nil {
		return err
	}
	defer cleanup()
	before := map[string]int{}
	for _, name := range contextNames {
		if before[name], err = apiserverWatches(ctx, envs[name]); err != nil {
			return err
		}
	}
	c, merged, err := startContextsDaemon(ctx, se)
	if err != nil {
		return err
	}
	defer c.kill()
	cmds := []contextsCommand{ctxDaemonGet}
	if e.hasKubectl() {
		cmds = append(cmds, ctxDaemonMerged)
	}
	if err := timeContexts(ctx, se, r, merged, cmds...); err != nil {
		return err
	}
	r.clients = 4
	for i := range r.clients {
		path, args := se.tools.reflect, []string{"watch", "cm", "-A", "-o", "name", "--kubeconfig", se.kubeconfig, "--context", strings.Join(contextNames, ",")}
		if i%2 == 1 && e.hasKubectl() {
			path, args = se.tools.kubectl, []string{"get", "cm", "-A", "-w", "-o", "name", "--kubeconfig", merged, "--context", "merged"}
		}
		out := newCounter(ndjson)
		w, err := se.procs.start(ctx, out, path, args...)
		if err != nil {
			return err
		}
		defer w.kill()
		if _, err := out.expect(len(contextNames)*r.perCluster).wait(ctx, e.cfg.wait, w.done); err != nil {
			return w.failure(err)
		}
	}
	for _, name := range contextNames {
		n, err := apiserverWatches(ctx, envs[name])
		if err != nil {
			return err
		}
		r.watches = append(r.watches, n-before[name])
	}
	e.logf("contexts: API server WATCHes of ConfigMaps with the daemon and %d clients: %v", r.clients, r.watches)
	return nil
}

// startContextsDaemon starts `serve cm` of the three contexts and waits
// until it serves their merged view; it returns the kubeconfig written.
func startContextsDaemon(ctx context.Context, e *env) (*child, string, error) {
	e.logf("contexts: starting kubectl-reflect serve cm --context %s", strings.Join(contextNames, ","))
	c, err := e.procs.start(ctx, io.Discard, e.tools.reflect, "serve", "cm", "--kubeconfig", e.kubeconfig, "--context", strings.Join(contextNames, ","))
	if err != nil {
		return nil, "", err
	}
	deadline := time.Now().Add(e.cfg.wait)
	for {
		// The merged view's line, after each context's "context NAME: kubeconfig: ..."
		if _, after, ok := strings.Cut(c.stderr.String(), "\nkubeconfig: "); ok {
			if path, _, ok := strings.Cut(after, " "); ok {
				return c, path, nil
			}
		}
		select {
		case <-c.done:
			return nil, "", c.failure(errors.New("exited before serving"))
		default:
		}
		if time.Now().After(deadline) {
			c.kill()
			return nil, "", c.failure(fmt.Errorf("not serving after %s", e.cfg.wait))
		}
		if err := sleep(ctx, 50*time.Millisecond); err != nil {
			return nil, "", err
		}
	}
}

// measureContextsWatch measures, cfg.repeat times, the CPU per event of a
// watch of the three contexts, the updates spread over them, and of a
// watch of one, the same number of updates in its cluster.
func measureContextsWatch(ctx context.Context, envs map[string]*env, r *contextsResult) error {
	e := envs[contextNames[0]]
	for round := range e.cfg.repeat {
		for _, names := range firstInRound(round, [][]string{contextNames, contextNames[:1]}) {
			ms, err := contextsWatchRound(ctx, envs, names, round, r.perCluster)
			if err != nil {
				return err
			}
			if len(names) > 1 {
				r.multi = append(r.multi, ms)
			} else {
				r.single = append(r.single, ms)
			}
		}
	}
	return nil
}

// contextsWatchEvents is how many times -events updates each watch round
// makes: CPU is read from /proc in clock ticks (10 ms), and at about
// 0.08 ms an event, 5,000 events are 40 ticks, too few for two watches
// whose figures should differ by a few percent.
const contextsWatchEvents = 3

// contextsWatchRound starts a watch of the contexts names, waits until it
// watches each (a sentinel update each), makes contextsWatchEvents times
// cfg.events updates spread over them, and returns its CPU per event in
// ms.
func contextsWatchRound(ctx context.Context, envs map[string]*env, names []string, round, perCluster int) (float64, error) {
	e := envs[names[0]]
	out := newCounter(ndjson)
	c, err := e.procs.start(ctx, out, e.tools.reflect, "watch", "cm", "-n", e.namespace, "-o", "json", "--watch-only",
		"--kubeconfig", e.kubeconfig, "--context", strings.Join(names, ","))
	if err != nil {
		return 0, err
	}
	defer c.kill()
	deadline := time.Now().Add(e.cfg.wait)
	for rev := 1; ; rev++ { // every context watching: a sentinel event from each
		if got, _ := out.counts(); got >= len(names) {
			break
		}
		if time.Now().After(deadline) {
			return 0, c.failure(errors.New("not watching every context"))
		}
		for i, name := range names {
			if got, _ := out.counts(); got > i {
				continue
			}
			if err := envs[name].clients.touch(ctx, e.namespace, 0, fmt.Sprintf("sentinel-%d-%d", round, rev)); err != nil {
				return 0, err
			}
			break // one at a time: the count says which have answered
		}
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return 0, err
		}
	}
	if err := sleep(ctx, time.Second); err != nil {
		return 0, err
	}
	base, _ := out.counts()
	cpu0, err := readCPU(c.pid())
	if err != nil {
		return 0, err
	}
	events := contextsWatchEvents * e.cfg.events
	done := out.expect(base + events)
	n := perCluster - 1
	err = parallel(ctx, e.cfg.workers, events, func(ctx context.Context, k int) error {
		rev := fmt.Sprintf("%d-%d-%d", len(names), round, k) // never a value written before: no no-op
		return envs[names[k%len(names)]].clients.touch(ctx, e.namespace, 1+(k/len(names))%n, rev)
	})
	if err != nil {
		return 0, err
	}
	if _, err := done.wait(ctx, e.cfg.wait, c.done); err != nil {
		return 0, c.failure(err)
	}
	cpu, err := readCPU(c.pid())
	if err != nil {
		return 0, err
	}
	ms := perEvent(cpu-cpu0, events)
	e.logf("contexts round %d/%d: watch of %s: %.3f ms CPU per event", round+1, e.cfg.repeat, strings.Join(names, ","), ms)
	return ms, nil
}
