//go:build linux

package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
)

// realisticResources are realisticKinds' resources.
var realisticResources = map[string]schema.GroupVersionResource{
	"pods":        {Version: "v1", Resource: "pods"},
	"nodes":       {Version: "v1", Resource: "nodes"},
	"leases":      {Group: "coordination.k8s.io", Version: "v1", Resource: "leases"},
	"events":      {Version: "v1", Resource: "events"},
	"deployments": {Group: "apps", Version: "v1", Resource: "deployments"},
	"replicasets": {Group: "apps", Version: "v1", Resource: "replicasets"},
}

// listMeta lists kind's objects' metadata in every namespace.
func (re *realisticEnv) listMeta(ctx context.Context, kind string) (*metav1.PartialObjectMetadataList, error) {
	mc, err := metadata.NewForConfig(re.cp.AdminConfig())
	if err != nil {
		return nil, err
	}
	l, err := mc.Resource(realisticResources[kind]).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", kind, err)
	}
	return l, nil
}

// countObjects is how many kind the cluster has now.
func (re *realisticEnv) countObjects(ctx context.Context, kind string) (int, error) {
	l, err := re.listMeta(ctx, kind)
	if err != nil {
		return 0, err
	}
	return len(l.Items), nil
}

// clusterRV is the cluster's resourceVersion now (a list's).
func (re *realisticEnv) clusterRV(ctx context.Context) (uint64, error) {
	l, err := re.listMeta(ctx, "nodes")
	if err != nil {
		return 0, err
	}
	return strconv.ParseUint(l.ResourceVersion, 10, 64)
}

// sideCounts is the two sides' counters at one time.
type sideCounts struct {
	at         time.Time
	written    map[string]history.Usage // since the record began
	daemonCPU  time.Duration
	kubectlCPU map[string]time.Duration
	events     map[string]int
}

func (re *realisticEnv) counts(ctx context.Context, s *history.SQLite) (sideCounts, error) {
	sn := sideCounts{at: time.Now(), written: map[string]history.Usage{}, kubectlCPU: map[string]time.Duration{}, events: map[string]int{}}
	usage, err := s.Usage(ctx, time.Unix(0, 0))
	if err != nil {
		return sn, err
	}
	for _, u := range usage {
		sn.written[u.Resource] = u
	}
	if sn.daemonCPU, err = readCPU(re.daemon.pid()); err != nil {
		return sn, err
	}
	for kind, w := range re.watchers {
		if sn.kubectlCPU[kind], err = readCPU(w.c.pid()); err != nil {
			return sn, err
		}
		sn.events[kind], _ = w.out.counts()
	}
	return sn, nil
}

// window is what happened from a to b, with each side's peak RSS now.
func (re *realisticEnv) window(a, b sideCounts) (realisticWindow, error) {
	w := realisticWindow{elapsed: b.at.Sub(a.at), daemonCPU: b.daemonCPU - a.daemonCPU,
		kubectlCPU: map[string]time.Duration{}, events: map[string]int{}, kubectlPeak: map[string]int64{}}
	for _, name := range slices.Sorted(maps.Keys(b.written)) {
		now, was := b.written[name], a.written[name]
		w.usage = append(w.usage, history.Usage{Resource: name, Revisions: now.Revisions - was.Revisions, Bytes: now.Bytes - was.Bytes})
	}
	m, err := readMemory(re.daemon.pid())
	if err != nil {
		return w, err
	}
	w.daemonPeak = m.peak()
	for kind, c := range re.watchers {
		w.kubectlCPU[kind] = b.kubectlCPU[kind] - a.kubectlCPU[kind]
		w.events[kind] = b.events[kind] - a.events[kind]
		if m, err = readMemory(c.c.pid()); err != nil {
			return w, err
		}
		w.kubectlPeak[kind] = m.peak()
	}
	return w, nil
}

// realisticSettle is how long the idle window starts after the last
// rollout completed: the controllers' and kwok's last writes of the
// rollouts (status of ReplicaSets, Deployments, pods) come within it and
// no event says they are all done.
const realisticSettle = 10 * time.Second

// measureWindows measures the window of rollouts, scales and deletions, then, once
// every rollout completed, the idle window.
func (re *realisticEnv) measureWindows(ctx context.Context, r *realisticResult) error {
	s, err := re.openHistory(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	rc := re.cfg.realistic
	a, err := re.counts(ctx, s)
	if err != nil {
		return err
	}
	re.logf("realistic: %s of rollouts, scales and deletions, one change every %s", rc.window, rc.every)
	if r.changes, err = re.churn(ctx, rc.window, rc.every); err != nil {
		return err
	}
	b, err := re.counts(ctx, s)
	if err != nil {
		return err
	}
	if r.churn, err = re.window(a, b); err != nil {
		return err
	}
	if rc.idle == 0 {
		return nil
	}
	waitCtx, cancel := context.WithTimeout(ctx, re.cfg.wait)
	defer cancel()
	if err := re.apps.AwaitComplete(waitCtx, re.names...); err != nil {
		return fmt.Errorf("the rollouts to complete: %w", err)
	}
	re.logf("realistic: the rollouts completed; idle for %s after %s", rc.idle, realisticSettle)
	if err := sleep(ctx, realisticSettle); err != nil {
		return err
	}
	if a, err = re.counts(ctx, s); err != nil {
		return err
	}
	if err := sleep(ctx, rc.idle); err != nil { // the time passing is what is measured
		return err
	}
	if b, err = re.counts(ctx, s); err != nil {
		return err
	}
	r.idle, err = re.window(a, b)
	return err
}

// churn changes the Deployments for d, one change every: a rollout of the
// next Deployment; every third change, from the third, instead a scale of
// the next one to half as many pods again, or back; and every sixth, from
// the fifth, instead a deletion of the next one (the garbage collector
// deletes its ReplicaSets and pods) and its creation again at once, as
// it was first made. Changes do not wait for the one before to complete,
// as a busy cluster's do not.
func (re *realisticEnv) churn(ctx context.Context, d, every time.Duration) (c churned, err error) {
	replicas := int32(re.cfg.realistic.pods / re.cfg.realistic.deployments)
	scaled := map[string]bool{}
	tick := time.NewTicker(every)
	defer tick.Stop()
	end := time.NewTimer(d)
	defer end.Stop()
	for i := 0; ; i++ {
		name := re.names[i%len(re.names)]
		switch {
		case i%6 == 4:
			scaled[name] = false
			err, c.deletions = re.recreate(ctx, name, replicas), c.deletions+1
		case i%3 == 2:
			to := replicas
			if !scaled[name] {
				to = replicas + max(replicas/2, 1)
			}
			scaled[name] = !scaled[name]
			err, c.scales = re.apps.Scale(ctx, name, to), c.scales+1
		default:
			_, err = re.apps.Rollout(ctx, name)
			c.rollouts++
		}
		if err != nil {
			return c, err
		}
		select {
		case <-ctx.Done():
			return c, ctx.Err()
		case <-end.C:
			return c, nil
		case <-tick.C:
		}
	}
}

// churned counts the changes of a churn.
type churned struct{ rollouts, scales, deletions int }

// recreate deletes the Deployment name and creates it again with
// replicas, a new object of the same name: the old one's ReplicaSets and
// pods are deleted by the garbage collector (background propagation, as
// kubectl delete asks) while the new one's are made.
func (re *realisticEnv) recreate(ctx context.Context, name string, replicas int32) error {
	if err := re.apps.Delete(ctx, name); err != nil {
		return err
	}
	_, err := re.apps.Create(ctx, name, replicas)
	return err
}
