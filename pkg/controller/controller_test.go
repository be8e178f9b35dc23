package controller

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr/funcr"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"

	"github.com/kubectl-reflect/kubectl-reflect/internal/reflectortest"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// The controller's tests run a reflector.Set against an in-memory server
// (internal/reflectortest) in synctest bubbles: synctest.Wait returns once
// every change has gone through the reflectors, the subscriptions and the
// reconciles it triggers.

var (
	generators = kube.Resource{GVR: schema.GroupVersionResource{Group: "kubectl-reflect.io", Version: "v1alpha1", Resource: "configmapgenerators"}, Kind: "ConfigMapGenerator", Namespaced: true}
	configMaps = kube.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Kind: "ConfigMap", Namespaced: true}
	namespaces = kube.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, Kind: "Namespace"}
)

// recorder is a Reconciler that records what it reconciled and why.
type recorder struct {
	mu    sync.Mutex
	calls []call
	fn    func(ctx context.Context, req Request) (Result, error) // optional
}

type call struct {
	req     Request
	trigger Trigger
}

func (r *recorder) Reconcile(ctx context.Context, req Request) (Result, error) {
	t, _ := TriggerFrom(ctx)
	r.mu.Lock()
	r.calls = append(r.calls, call{req: req, trigger: t})
	r.mu.Unlock()
	if r.fn != nil {
		return r.fn(ctx, req)
	}
	return Result{}, nil
}

// take returns the calls so far and forgets them.
func (r *recorder) take() []call {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.calls
	r.calls = nil
	return out
}

func requestsOf(calls []call) []Request {
	var out []Request
	for _, c := range calls {
		if !slices.Contains(out, c.req) {
			out = append(out, c.req)
		}
	}
	slices.SortFunc(out, func(a, b Request) int { return strings.Compare(a.String(), b.String()) })
	return out
}

func apply(t *testing.T, srv *reflectortest.Server, res kube.Resource, doc string) {
	t.Helper()
	if _, err := srv.Apply(res, doc); err != nil {
		t.Fatal(err)
	}
}

func ownedBy(ns, name, kind, apiVersion, owner string, controller bool) string {
	c := "false"
	if controller {
		c = "true"
	}
	return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"` + ns + `","name":"` + name +
		`","ownerReferences":[{"apiVersion":"` + apiVersion + `","kind":"` + kind + `","name":"` + owner + `","uid":"u","controller":` + c + `}]}}`
}

func generator(ns, name string) string {
	return `{"apiVersion":"kubectl-reflect.io/v1alpha1","kind":"ConfigMapGenerator","metadata":{"namespace":"` + ns + `","name":"` + name + `"}}`
}

// started runs c in the background; stop cancels it and returns Run's error.
func started(t *testing.T, c *Controller) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	return func() error { cancel(); return <-done }
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// newTestController builds a controller of generators that owns ConfigMaps
// and watches Namespaces (a namespace maps to its generator "g").
func newTestController(t *testing.T, srv *reflectortest.Server, r Reconciler, opts Options) (*Controller, *reflector.Set) {
	t.Helper()
	set := reflector.NewSet(reflector.SetOptions{NewClient: srv.NewClient})
	b := NewBuilder("test", set)
	b.For(generators, kube.Scope{})
	b.Owns(configMaps, kube.Scope{})
	b.Watches(namespaces, kube.Scope{}, func(o *object.Object) []Request {
		return []Request{{Namespace: o.Name, Name: "g"}}
	})
	c, err := b.Build(r, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c, set
}

func TestControllerMapsInputsToRoots(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := reflectortest.NewServer()
		apply(t, srv, generators, generator("ns1", "g1"))
		apply(t, srv, configMaps, ownedBy("ns1", "c1", "ConfigMapGenerator", "kubectl-reflect.io/v1alpha1", "g2", true))
		apply(t, srv, configMaps, ownedBy("ns1", "c2", "Deployment", "apps/v1", "d", true))
		apply(t, srv, configMaps, ownedBy("ns1", "c3", "ConfigMapGenerator", "kubectl-reflect.io/v1alpha1", "g3", false))
		apply(t, srv, configMaps, ownedBy("ns1", "c4", "ConfigMapGenerator", "other.io/v1", "g4", true))
		apply(t, srv, namespaces, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ns1"}}`)
		rec := &recorder{}
		c, set := newTestController(t, srv, rec, Options{})
		if isClosed(c.Ready()) {
			t.Fatal("ready before Run")
		}
		stop := started(t, c)
		synctest.Wait()
		if !isClosed(c.Ready()) {
			t.Fatal("not ready once every input synced")
		}
		want := []Request{{Namespace: "ns1", Name: "g"}, {Namespace: "ns1", Name: "g1"}, {Namespace: "ns1", Name: "g2"}}
		if got := requestsOf(rec.take()); !slices.Equal(got, want) {
			t.Fatalf("initial reconciles %v, want %v (the root, the controller owner of its kind, the mapped namespace)", got, want)
		}

		apply(t, srv, configMaps, ownedBy("ns2", "c5", "ConfigMapGenerator", "kubectl-reflect.io/v1alpha1", "g5", true))
		synctest.Wait()
		calls := rec.take()
		if len(calls) != 1 || calls[0].req != (Request{Namespace: "ns2", Name: "g5"}) ||
			calls[0].trigger != (Trigger{Kind: TriggerChange, Resource: "configmaps", Key: store.Key{Namespace: "ns2", Name: "c5"}}) {
			t.Fatalf("a new owned ConfigMap: calls %+v, want one of ns2/g5 triggered by configmaps ns2/c5", calls)
		}

		srv.Delete(generators, store.Key{Namespace: "ns1", Name: "g1"})
		srv.Delete(configMaps, store.Key{Namespace: "ns1", Name: "c2"})
		apply(t, srv, namespaces, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ns3"}}`)
		synctest.Wait()
		want = []Request{{Namespace: "ns1", Name: "g1"}, {Namespace: "ns3", Name: "g"}}
		if got := requestsOf(rec.take()); !slices.Equal(got, want) {
			t.Fatalf("after a deletion and a new namespace: reconciles %v, want %v", got, want)
		}

		c.ReconcileAll()
		synctest.Wait()
		calls = rec.take()
		if len(calls) != 0 {
			t.Fatalf("ReconcileAll with no root left reconciled %+v", calls)
		}
		apply(t, srv, generators, generator("ns1", "g6"))
		synctest.Wait()
		rec.take()
		c.ReconcileAll()
		synctest.Wait()
		if calls := rec.take(); len(calls) != 1 || calls[0].trigger.Kind != TriggerAll {
			t.Fatalf("ReconcileAll: calls %+v, want ns1/g6 with trigger reconcile-all", calls)
		}

		if err := stop(); err != nil {
			t.Fatalf("Run returned %v after ctx ended, want nil", err)
		}
		if n := set.Len(); n != 0 {
			t.Fatalf("%d reflectors still run after Run returned", n)
		}
		c.ReconcileAll() // after Run: nothing
	})
}

// TestControllerWaitsForEveryInput: no reconcile runs while an input is
// still listing, though the root's input has synced and queued its
// objects; once the last input syncs, every root is reconciled.
func TestControllerWaitsForEveryInput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := reflectortest.NewServer()
		apply(t, srv, generators, generator("ns1", "g1"))
		apply(t, srv, configMaps, ownedBy("ns1", "c1", "ConfigMapGenerator", "kubectl-reflect.io/v1alpha1", "g1", true))
		release := srv.Hold(configMaps)
		defer release()
		rec := &recorder{}
		c, _ := newTestController(t, srv, rec, Options{Concurrency: 2})
		stop := started(t, c)
		synctest.Wait()
		if calls := rec.take(); len(calls) != 0 {
			t.Fatalf("reconciled %+v while the ConfigMaps were listing", calls)
		}
		if isClosed(c.Ready()) {
			t.Fatal("ready while the ConfigMaps were listing")
		}
		release()
		synctest.Wait()
		if !isClosed(c.Ready()) {
			t.Fatal("not ready once every input synced")
		}
		want := []Request{{Namespace: "ns1", Name: "g1"}}
		if got := requestsOf(rec.take()); !slices.Equal(got, want) {
			t.Fatalf("reconciles once synced %v, want %v", got, want)
		}
		if err := stop(); err != nil {
			t.Fatalf("Run returned %v, want nil", err)
		}
	})
}

// TestControllerStopsBeforeSync: a controller stopped while an input is
// still listing returns without reconciling.
func TestControllerStopsBeforeSync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := reflectortest.NewServer()
		apply(t, srv, generators, generator("ns1", "g1"))
		release := srv.Hold(configMaps)
		defer release()
		rec := &recorder{}
		c, set := newTestController(t, srv, rec, Options{})
		stop := started(t, c)
		synctest.Wait()
		if err := stop(); err != nil {
			t.Fatalf("Run returned %v, want nil", err)
		}
		if calls := rec.take(); len(calls) != 0 {
			t.Fatalf("reconciled %+v before every input synced", calls)
		}
		if n := set.Len(); n != 0 {
			t.Fatalf("%d reflectors still run after Run returned", n)
		}
	})
}

func TestControllerWaitsForReconcilesInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := reflectortest.NewServer()
		apply(t, srv, generators, generator("ns1", "g1"))
		release := make(chan struct{})
		var reconcileErr error
		rec := &recorder{fn: func(ctx context.Context, req Request) (Result, error) {
			<-release
			reconcileErr = ctx.Err()
			return Result{}, nil
		}}
		c, _ := newTestController(t, srv, rec, Options{})
		stopRun := started(t, c)
		synctest.Wait() // the reconcile is in flight
		stop := make(chan error, 1)
		go func() { stop <- stopRun() }()
		synctest.Wait() // Run's ctx cancelled
		select {
		case err := <-stop:
			t.Fatalf("Run returned %v with a reconcile in flight", err)
		default:
		}
		close(release)
		if err := <-stop; err != nil {
			t.Fatalf("Run returned %v, want nil", err)
		}
		if reconcileErr != nil {
			t.Fatalf("the reconcile in flight saw its ctx end (%v): a graceful stop lets it finish", reconcileErr)
		}
	})
}

func TestControllerForceStopCancelsReconciles(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := reflectortest.NewServer()
		apply(t, srv, generators, generator("ns1", "g1"))
		force := make(chan struct{})
		rec := &recorder{fn: func(ctx context.Context, req Request) (Result, error) {
			<-ctx.Done()
			return Result{}, ctx.Err()
		}}
		c, _ := newTestController(t, srv, rec, Options{ForceStop: force})
		stopRun := started(t, c)
		synctest.Wait() // the reconcile is in flight
		stop := make(chan error, 1)
		go func() { stop <- stopRun() }()
		synctest.Wait()
		select {
		case err := <-stop:
			t.Fatalf("Run returned %v before the force stop", err)
		default:
		}
		close(force)
		if err := <-stop; err != nil {
			t.Fatalf("Run returned %v, want nil", err)
		}
	})
}

func TestControllerRecoversPanics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := reflectortest.NewServer()
		apply(t, srv, generators, generator("ns1", "g1"))
		var (
			mu      sync.Mutex
			records []ReconcileRecord
			lines   []string
		)
		first := true
		rec := &recorder{fn: func(ctx context.Context, req Request) (Result, error) {
			klog.FromContext(ctx).Info("reconciling")
			if first {
				first = false
				panic("oops")
			}
			return Result{}, nil
		}}
		log := funcr.New(func(prefix, args string) {
			mu.Lock()
			lines = append(lines, args)
			mu.Unlock()
		}, funcr.Options{})
		c, _ := newTestController(t, srv, rec, Options{Logger: log, OnReconcile: func(r ReconcileRecord) {
			mu.Lock()
			records = append(records, r)
			mu.Unlock()
		}})
		stop := started(t, c)
		time.Sleep(time.Second) // fake time: the retry's backoff passes
		synctest.Wait()
		if err := stop(); err != nil {
			t.Fatal(err)
		}
		if len(records) != 2 || records[0].Err == nil || !strings.Contains(records[0].Err.Error(), "oops") ||
			records[1].Err != nil || records[1].Trigger.Kind != TriggerRetry {
			t.Fatalf("records %+v, want a panic as an error then a successful retry", records)
		}
		if records[0].ReconcileID == "" || records[0].ReconcileID == records[1].ReconcileID {
			t.Fatalf("reconcile IDs %q and %q, want two different ones", records[0].ReconcileID, records[1].ReconcileID)
		}
		want := `"controller"="test" "namespace"="ns1" "name"="g1" "reconcileID"="` + records[0].ReconcileID + `"`
		if !slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, want) && strings.Contains(l, "reconciling") }) {
			t.Fatalf("log lines %q, want the reconciler's line with %s", lines, want)
		}
	})
}

func TestControllerStopsWhenAnInputFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := reflectortest.NewServer()
		srv.Forbid(namespaces)
		c, set := newTestController(t, srv, &recorder{}, Options{})
		err := c.Run(t.Context())
		if err == nil || !strings.Contains(err.Error(), "forbidden") {
			t.Fatalf("Run returned %v, want the forbidden namespaces' error", err)
		}
		if n := set.Len(); n != 0 {
			t.Fatalf("%d reflectors still run after Run returned", n)
		}
		if isClosed(c.Ready()) {
			t.Fatal("ready although an input never synced")
		}
		if err := c.Run(t.Context()); err == nil || !strings.Contains(err.Error(), "twice") {
			t.Fatalf("a second Run returned %v, want an error", err)
		}
	})
}

func TestBuildRejects(t *testing.T) {
	set := reflector.NewSet(reflector.SetOptions{NewClient: reflectortest.NewServer().NewClient})
	r := &recorder{}
	tests := []struct {
		name  string
		build func(b *Builder) (*Controller, error)
	}{
		{"no For", func(b *Builder) (*Controller, error) { b.Owns(configMaps, kube.Scope{}); return b.Build(r, Options{}) }},
		{"two For", func(b *Builder) (*Controller, error) {
			b.For(generators, kube.Scope{})
			b.For(configMaps, kube.Scope{})
			return b.Build(r, Options{})
		}},
		{"no mapper", func(b *Builder) (*Controller, error) {
			b.For(generators, kube.Scope{})
			b.Watches(namespaces, kube.Scope{}, nil)
			return b.Build(r, Options{})
		}},
		{"no reconciler", func(b *Builder) (*Controller, error) { b.For(generators, kube.Scope{}); return b.Build(nil, Options{}) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tt.build(NewBuilder("test", set)); err == nil {
				t.Fatal("Build succeeded")
			}
		})
	}
}

// TestControllerNamespace: with Options.Namespace, only the requests of
// that namespace are reconciled, whatever the inputs read and however a
// request comes (a root's change, a mapped change, ReconcileAll).
func TestControllerNamespace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := reflectortest.NewServer()
		apply(t, srv, generators, generator("ns1", "g1"))
		apply(t, srv, generators, generator("ns2", "g2"))
		rec := &recorder{}
		c, _ := newTestController(t, srv, rec, Options{Namespace: "ns1"})
		stop := started(t, c)
		synctest.Wait()
		want := []Request{{Namespace: "ns1", Name: "g1"}}
		if got := requestsOf(rec.take()); !slices.Equal(got, want) {
			t.Fatalf("initial reconciles %v, want %v", got, want)
		}
		apply(t, srv, configMaps, ownedBy("ns2", "c2", "ConfigMapGenerator", "kubectl-reflect.io/v1alpha1", "g2", true))
		apply(t, srv, namespaces, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ns2"}}`)
		apply(t, srv, namespaces, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ns1"}}`)
		synctest.Wait()
		want = []Request{{Namespace: "ns1", Name: "g"}}
		if got := requestsOf(rec.take()); !slices.Equal(got, want) {
			t.Fatalf("after changes in both namespaces: reconciles %v, want %v", got, want)
		}
		c.ReconcileAll()
		synctest.Wait()
		want = []Request{{Namespace: "ns1", Name: "g1"}}
		if got := requestsOf(rec.take()); !slices.Equal(got, want) {
			t.Fatalf("ReconcileAll: reconciles %v, want %v", got, want)
		}
		if err := stop(); err != nil {
			t.Fatal(err)
		}
	})
}
