//go:build linux

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
)

// realisticKinds are what the realistic part records, and what its kubectl
// watchers watch, one kubectl each: kubectl get -w refuses several kinds.
var realisticKinds = []string{"pods", "nodes", "leases", "events", "deployments", "replicasets"}

// realisticConfig is the realistic part's shape and windows (its flags).
type realisticConfig struct {
	nodes, pods, deployments int
	window                   time.Duration // of rollouts, scales and deletions, measured
	idle                     time.Duration // after the rollouts completed, measured; 0: none
	every                    time.Duration // between two changes of the window
}

// flags registers the part's flags; small is -realistic-small's.
func (rc *realisticConfig) flags(fs *flag.FlagSet) (small *bool) {
	fs.IntVar(&rc.nodes, "realistic-nodes", 100, "kwok nodes of the realistic part's cluster")
	fs.IntVar(&rc.pods, "realistic-pods", 3000, "pods of the realistic part's cluster, in -realistic-deployments Deployments")
	fs.IntVar(&rc.deployments, "realistic-deployments", 60, "Deployments of the realistic part's cluster")
	fs.DurationVar(&rc.window, "realistic-window", 90*time.Second, "the realistic part's window of rollouts, scales and deletions, measured")
	fs.DurationVar(&rc.idle, "realistic-idle", realisticIdleJudged, "the realistic part's idle window after the rollouts completed (0: none); shorter than 5m, its growth is not judged against issue 48's bound")
	fs.DurationVar(&rc.every, "realistic-every", 10*time.Second, "time between two changes (a rollout, or every third a scale) in the realistic part's window")
	return fs.Bool("realistic-small", false, "a small realistic cluster to try the part quickly: 10 nodes, 300 pods in 6 Deployments, a 1-minute window and 30 s idle, unless set (-quick implies it)")
}

// complete applies -realistic-small to the flags not set, and checks them.
func (rc *realisticConfig) complete(fs *flag.FlagSet, small bool) error {
	if small {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		for name, apply := range map[string]func(){
			"realistic-nodes":       func() { rc.nodes = 10 },
			"realistic-pods":        func() { rc.pods = 300 },
			"realistic-deployments": func() { rc.deployments = 6 },
			"realistic-window":      func() { rc.window = time.Minute },
			"realistic-idle":        func() { rc.idle = 30 * time.Second },
		} {
			if !set[name] {
				apply()
			}
		}
	}
	switch {
	case rc.nodes < 1 || rc.deployments < 1:
		return errors.New("-realistic-nodes and -realistic-deployments must be at least 1")
	case rc.pods < rc.deployments:
		return fmt.Errorf("-realistic-pods (%d) must be at least -realistic-deployments (%d)", rc.pods, rc.deployments)
	case rc.window < time.Second || rc.every <= 0 || rc.idle < 0:
		return errors.New("-realistic-window must be at least 1s, -realistic-every positive, -realistic-idle not negative")
	}
	return nil
}

// realisticResult is the realistic part: a recording daemon and kubectl's
// watchers of the same kinds, side by side over a window of rollouts, and
// the record's growth over an idle window after it.
type realisticResult struct {
	shape       realisticConfig
	start, make time.Duration // the control plane's start; the shape's Deployments to complete
	changes     churned       // the window's changes of the Deployments
	churn, idle realisticWindow
}

// realisticWindow is what a window measured: the record's growth per
// resource, and the CPU, events and peak RSS of each side.
type realisticWindow struct {
	elapsed     time.Duration
	usage       []history.Usage // written in the window, by resource
	daemonCPU   time.Duration
	kubectlCPU  map[string]time.Duration // by kind
	events      map[string]int           // kubectl's, by kind
	daemonPeak  int64                    // VmHWM, bytes, over its life
	kubectlPeak map[string]int64         // by kind
}

// realisticEnv is the part's cluster, its Deployments and the two sides.
type realisticEnv struct {
	*env
	cp       *controlplane.ControlPlane
	apps     *controlplane.Deployments
	names    []string
	state    string
	daemon   *child
	watchers map[string]*watcher // kubectl get KIND -A -w -o json
}

// watcher is one kubectl get -w and its stdout.
type watcher struct {
	c   *child
	out *counter
}

func measureRealistic(ctx context.Context, e *env) (realisticResult, error) {
	rc := e.cfg.realistic
	r := realisticResult{shape: rc}
	e.logf("realistic: starting a cluster of %d kwok nodes with kube-scheduler", rc.nodes)
	start := time.Now()
	cp, err := controlplane.Start(ctx, controlplane.Options{Scheduler: true, Kwok: &controlplane.KwokOptions{Nodes: rc.nodes},
		Build: controlplane.BuildOptions{Progress: e.log}})
	if err != nil {
		return r, err
	}
	defer func() {
		if err := cp.Stop(); err != nil {
			e.logf("realistic: stop the cluster: %v", err)
		}
	}()
	r.start = time.Since(start)
	e.logf("realistic: the cluster started in %s; making %d pods in %d Deployments", r.start.Round(time.Second), rc.pods, rc.deployments)
	start = time.Now()
	apps, names, err := cp.MakeShape(ctx, controlplane.Shape{Namespace: "realistic", Deployments: rc.deployments, Replicas: int32(rc.pods / rc.deployments)})
	if err != nil {
		return r, err
	}
	r.make = time.Since(start)
	e.logf("realistic: the pods run after %s", r.make.Round(time.Second))
	re, cleanup, err := newRealisticEnv(e, cp)
	if err != nil {
		return r, err
	}
	defer cleanup()
	re.apps, re.names = apps, names
	if err := re.startSides(ctx); err != nil {
		return r, err
	}
	if err := re.measureWindows(ctx, &r); err != nil {
		return r, err
	}
	return r, nil
}

// newRealisticEnv gives the part's commands the cluster's kubeconfig and
// runtime and state directories of their own.
func newRealisticEnv(e *env, cp *controlplane.ControlPlane) (*realisticEnv, func(), error) {
	runtimeDir, err := os.MkdirTemp("", "kubectl-reflect-bench-run-")
	if err != nil {
		return nil, nil, err
	}
	state, err := os.MkdirTemp("", "kubectl-reflect-bench-state-")
	if err != nil {
		os.RemoveAll(runtimeDir)
		return nil, nil, err
	}
	re := *e
	re.kubeconfig = cp.AdminKubeconfig()
	re.procs = newProcs(append(append([]string{}, e.procs.env...), "XDG_RUNTIME_DIR="+runtimeDir, "XDG_STATE_HOME="+state))
	return &realisticEnv{env: &re, cp: cp, state: state, watchers: map[string]*watcher{}}, func() {
		re.procs.killAll()
		os.RemoveAll(runtimeDir)
		os.RemoveAll(state)
	}, nil
}

// startSides starts the recording daemon and waits until its history
// holds the cluster's state, then each kubectl watcher and waits until it
// printed its kind's initial list.
func (re *realisticEnv) startSides(ctx context.Context) error {
	d, err := startServe(ctx, re.env, strings.Join(realisticKinds, ","), "--record")
	if err != nil {
		return err
	}
	re.daemon = d.c
	if err := re.awaitRecorded(ctx); err != nil {
		return err
	}
	for _, kind := range realisticKinds {
		n, err := re.countObjects(ctx, kind)
		if err != nil {
			return err
		}
		w := &watcher{out: newCounter(jsonValues)}
		if w.c, err = re.procs.start(ctx, w.out, re.tools.kubectl, "get", kind, "-A", "-w", "-o", "json", "--kubeconfig", re.kubeconfig); err != nil {
			return err
		}
		re.watchers[kind] = w
		if _, err := w.out.expect(kubectlInitialRecords(n)).wait(ctx, re.cfg.wait, w.c.done); err != nil {
			return w.c.failure(fmt.Errorf("its initial list of %d %s: %w", n, kind, err))
		}
	}
	return nil
}

// kubectlChunk is kubectl's --chunk-size default: it lists in pages of
// that many objects.
const kubectlChunk = 500

// kubectlInitialRecords is how many JSON documents `kubectl get -w -o
// json` prints for an initial list of n objects: each object of a list of
// one page, but a List per page of a list of several (it prints the items
// of what its resource builder gives, which holds a list per page then).
func kubectlInitialRecords(n int) int {
	if n <= kubectlChunk {
		return n
	}
	return (n + kubectlChunk - 1) / kubectlChunk
}

// awaitRecorded waits until the daemon's history ends at or after the
// cluster's resourceVersion once it served: its initial state is written.
func (re *realisticEnv) awaitRecorded(ctx context.Context) error {
	rv, err := re.clusterRV(ctx)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(re.cfg.wait)
	for {
		if historyReaches(ctx, re.state, rv) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the history does not reach resourceVersion %d after %s", rv, re.cfg.wait)
		}
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}

// openHistory opens the daemon's history to read.
func (re *realisticEnv) openHistory(ctx context.Context) (*history.SQLite, error) {
	path, err := historyFileIn(re.state)
	if err != nil {
		return nil, err
	}
	return history.OpenSQLite(ctx, path, history.OpenOptions{ReadOnly: true})
}
