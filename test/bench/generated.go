//go:build linux

package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
)

// generated follows the ConfigMaps that ConfigMapGenerators own in one
// namespace, as the benchmark's own watch sees them: for each generator (the
// controller ownerReference's name), the generated ConfigMap's data["rev"].
// It does not care what the controller names the ConfigMap.
type generated struct {
	mu      sync.Mutex
	revs    map[string]string // generator name -> data["rev"] of its ConfigMap
	changed chan struct{}     // closed and replaced on every change of revs
	err     error             // the watch's failure, if it ended
}

// watchGenerated starts following namespace's generated ConfigMaps until
// ctx ends.
func watchGenerated(ctx context.Context, e *env, namespace string) (*generated, error) {
	cms := e.clients.cs.CoreV1().ConfigMaps(namespace)
	list, err := cms.List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list ConfigMaps in %s: %w", namespace, err)
	}
	w, err := watchtools.NewRetryWatcherWithContext(ctx, list.ResourceVersion, &cache.ListWatch{
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return cms.Watch(ctx, o)
		},
	})
	if err != nil {
		return nil, fmt.Errorf("watch ConfigMaps in %s: %w", namespace, err)
	}
	g := &generated{revs: map[string]string{}, changed: make(chan struct{})}
	for i := range list.Items {
		g.apply(watch.Added, &list.Items[i])
	}
	go func() {
		defer w.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-w.ResultChan():
				if !ok {
					g.fail(fmt.Errorf("the watch of ConfigMaps in %s ended", namespace))
					return
				}
				if cm, isCM := ev.Object.(*corev1.ConfigMap); isCM {
					g.apply(ev.Type, cm)
				}
			}
		}
	}()
	return g, nil
}

func (g *generated) apply(t watch.EventType, cm *corev1.ConfigMap) {
	owner := metav1.GetControllerOf(cm)
	if owner == nil || owner.Kind != "ConfigMapGenerator" {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if t == watch.Deleted {
		delete(g.revs, owner.Name)
	} else {
		g.revs[owner.Name] = cm.Data["rev"]
	}
	close(g.changed)
	g.changed = make(chan struct{})
}

func (g *generated) fail(err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.err = err
	close(g.changed)
	g.changed = make(chan struct{})
}

// await waits until cond holds of the generated ConfigMaps, for at most
// limit or until done is closed (the controller exited), and returns when it
// saw it hold.
func (g *generated) await(ctx context.Context, limit time.Duration, done <-chan struct{}, what string, cond func(revs map[string]string) bool) (time.Time, error) {
	timeout := time.NewTimer(limit)
	defer timeout.Stop()
	for {
		g.mu.Lock()
		ok, err, changed := cond(g.revs), g.err, g.changed
		g.mu.Unlock()
		switch {
		case ok:
			return time.Now(), nil
		case err != nil:
			return time.Time{}, err
		}
		select {
		case <-changed:
		case <-done:
			return time.Time{}, fmt.Errorf("the controller exited while waiting for %s", what)
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		case <-timeout.C:
			return time.Time{}, fmt.Errorf("no %s after %s", what, limit)
		}
	}
}
