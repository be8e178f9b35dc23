//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// inProcessConfig is the client configuration of every cache measured in
// the benchmark's process: the admin's, with a client-side rate limit that
// never holds a list back. (kube.NewRESTClient turns the limit off anyway.)
func (e *env) inProcessConfig() *rest.Config {
	cfg := rest.CopyConfig(e.admin)
	cfg.QPS, cfg.Burst = 1000, 2000
	return cfg
}

// configMaps are the objects of the benchmark.
var configMaps = kube.Resource{GVR: corev1.SchemeGroupVersion.WithResource("configmaps"), Kind: "ConfigMap", Namespaced: true}

// newStoreClient is the client kubectl-reflect's store is fed from: the
// namespace's objects of resource, pruned of managedFields and last-applied,
// and packed as long-lived stores keep them (kube.Shape.Pack).
func newStoreClient(cfg *rest.Config, resource kube.Resource, namespace string) (*kube.Client, error) {
	rc, err := kube.NewRESTClient(cfg)
	if err != nil {
		return nil, err
	}
	scope := kube.Scope{Namespace: namespace, Shape: kube.Shape{Prune: object.Prune{ManagedFields: true, LastApplied: true}, Pack: true}}
	return kube.NewClient(rc, resource, scope), nil
}

// newStore returns a store fed from c, which reuses its unchanged objects
// on a relist, as kubectl-reflect's reflectors do.
func newStore(c *kube.Client) *store.Store[*object.Object] {
	s := store.New(store.Options[*object.Object]{})
	c.Reuse(func(namespace, name string) (*object.Object, bool) {
		return s.Get(store.Key{Namespace: namespace, Name: name})
	})
	return s
}

// runningWatcher is a watcher running in its own goroutine.
type runningWatcher struct {
	cancel context.CancelFunc
	done   chan struct{} // closed once Run returned
	err    error         // Run's error, set before done is closed
}

// startWatcher runs a watcher of c into handle until stopped, listing
// as list says (the commands' default: watch.ListWhole).
func startWatcher(ctx context.Context, c *kube.Client, list watch.ListMode, handle watch.Handler[*object.Object]) *runningWatcher {
	ctx, cancel := context.WithCancel(ctx)
	w := &runningWatcher{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		w.err = watch.New(c, watch.Options{List: list}).Run(ctx, handle)
	}()
	return w
}

// waitFor waits until ready is closed. It fails when the watcher ends
// first, when ctx ends, or after limit.
func (w *runningWatcher) waitFor(ctx context.Context, ready <-chan struct{}, limit time.Duration) error {
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case <-ready:
		return nil
	case <-w.done:
		if w.err == nil {
			w.err = errors.New("watcher ended")
		}
		return fmt.Errorf("before the list was stored: %w", w.err)
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return fmt.Errorf("list not stored after %s", limit)
	}
}

// stop stops the watcher and waits until it has returned.
func (w *runningWatcher) stop() {
	w.cancel()
	<-w.done
}
