//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// clients talk to the API server for the benchmark itself (never measured).
type clients struct {
	cfg *rest.Config // QPS and burst raised as for cs
	cs  kubernetes.Interface
}

// newClients builds a clientset whose rate limit does not hold back workers
// parallel writers.
func newClients(cfg *rest.Config, workers int) (*clients, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS = float32(100 * workers)
	cfg.Burst = 200 * workers
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("client for the benchmark: %w", err)
	}
	return &clients{cfg: cfg, cs: cs}, nil
}

// objectName is the name of the i-th ConfigMap; the 0th is the sentinel of
// the live measurement.
func objectName(i int) string { return fmt.Sprintf("bench-%06d", i) }

type populateResult struct {
	objects int
	elapsed time.Duration
}

// populate creates the namespace and cfg.objects ConfigMaps in it.
func populate(ctx context.Context, e *env) (populateResult, error) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: e.namespace}}
	if _, err := e.clients.cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return populateResult{}, fmt.Errorf("create namespace %s: %w", e.namespace, err)
	}
	e.logf("creating %d ConfigMaps of %d bytes with %d workers", e.cfg.objects, e.cfg.size, e.cfg.workers)
	start := time.Now()
	if err := createConfigMaps(ctx, e, e.namespace, 0, e.cfg.objects); err != nil {
		return populateResult{}, err
	}
	r := populateResult{objects: e.cfg.objects, elapsed: time.Since(start)}
	e.logf("created %d ConfigMaps in %s", r.objects, r.elapsed.Round(time.Millisecond))
	return r, nil
}

// createConfigMaps creates the ConfigMaps from..to-1 (see objectName) in
// namespace, of about cfg.size bytes of data each, with cfg.workers
// parallel writers.
func createConfigMaps(ctx context.Context, e *env, namespace string, from, to int) error {
	return parallel(ctx, e.cfg.workers, to-from, func(ctx context.Context, i int) error {
		i += from
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: objectName(i), Labels: map[string]string{"app": "bench"}},
			Data:       map[string]string{"payload": payload(i, e.cfg.size)},
		}
		if _, err := e.clients.cs.CoreV1().ConfigMaps(namespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create ConfigMap %s: %w", cm.Name, err)
		}
		return nil
	})
}

// touch sets data.rev of the i-th ConfigMap with a merge patch, which
// makes one MODIFIED event unless rev is the value it has already.
func (c *clients) touch(ctx context.Context, namespace string, i int, rev string) error {
	patch, err := json.Marshal(map[string]any{"data": map[string]string{"rev": rev}})
	if err != nil {
		return fmt.Errorf("update ConfigMap %s: %w", objectName(i), err)
	}
	if _, err := c.cs.CoreV1().ConfigMaps(namespace).Patch(ctx, objectName(i), types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("update ConfigMap %s: %w", objectName(i), err)
	}
	return nil
}

// payload is size letters, different for each object.
func payload(i, size int) string {
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	r := rand.New(rand.NewPCG(uint64(i), 0x5eed))
	b := make([]byte, size)
	for j := range b {
		b[j] = letters[r.IntN(len(letters))]
	}
	return string(b)
}

// parallel calls fn for 0..n-1 from workers goroutines and returns the
// first error, after which the rest are cancelled.
func parallel(ctx context.Context, workers, n int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				if err := fn(ctx, i); err != nil {
					cancel(err)
					return
				}
			}
		})
	}
	wg.Wait()
	return context.Cause(ctx)
}
