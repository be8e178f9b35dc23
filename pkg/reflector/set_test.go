package reflector

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// patience bounds every wait, as a guard against hangs only.
const patience = 10 * time.Second

func guard(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), patience)
	t.Cleanup(cancel)
	return ctx
}

func names(objs []*object.Object) string {
	var out []string
	for _, o := range objs {
		out = append(out, store.KeyOf(o).String())
	}
	return strings.Join(out, " ")
}

// waitWatch waits for the next WATCH the fake server is asked for.
func (f *fakeServer) waitWatch(t *testing.T) {
	t.Helper()
	select {
	case <-f.watches:
	case <-time.After(patience):
		t.Fatal("no WATCH opened")
	}
}

// TestSetSharesOneReflector: N consumers of one resource and scope share one
// client, one LIST and one WATCH; the reflector runs until the last leaves,
// and then no goroutine is left.
func TestSetSharesOneReflector(t *testing.T) {
	defer goleak.VerifyNone(t)
	f := newFakeServer(cm("a", "x"), cm("b", "y"))
	set := NewSet(SetOptions{NewClient: f.newClient})
	scope := kube.Scope{Shape: kube.Shape{Table: true}}
	var handles []*Handle
	for range 3 {
		handles = append(handles, set.Acquire(configMaps, scope))
	}
	if err := WaitForSync(guard(t), handles...); err != nil {
		t.Fatalf("WaitForSync: %v", err)
	}
	f.waitWatch(t)
	for i, l := range handles {
		if got := names(l.List()); got != "a/x b/y" {
			t.Errorf("handle %d lists %q, want a/x b/y", i, got)
		}
	}
	handles[0].Release()
	handles[0].Release() // idempotent: does not count twice
	handles[1].Release()
	select {
	case <-handles[2].Done():
		t.Fatal("the reflector stopped while a handle was held")
	default:
	}
	if set.Len() != 1 {
		t.Errorf("Len = %d with a handle held, want 1", set.Len())
	}
	late := set.Acquire(configMaps, scope) // joins the running one
	handles[2].Release()
	late.Release()
	<-late.Done() // Release of the last returns after it stopped
	if set.Len() != 0 || late.Err() != nil {
		t.Errorf("after the last Release: Len = %d, Err = %v; want 0, nil", set.Len(), late.Err())
	}
	if clients, lists := f.counts(); clients != 1 || lists != 1 || len(f.watches) != 0 {
		t.Errorf("%d clients, %d LISTs, %d more WATCHes; want 1, 1, 0", clients, lists, len(f.watches))
	}

	// Started on first use again.
	again := set.Acquire(configMaps, scope)
	defer again.Release()
	if err := WaitForSync(guard(t), again); err != nil {
		t.Fatal(err)
	}
	if clients, lists := f.counts(); clients != 2 || lists != 2 {
		t.Errorf("after a new first use: %d clients, %d LISTs; want 2, 2", clients, lists)
	}
}

// TestSetCoveringScope: a consumer of one namespace reuses a running
// reflector of all namespaces, and reads and subscribes to its namespace
// only; the other way round opens a second reflector.
func TestSetCoveringScope(t *testing.T) {
	defer goleak.VerifyNone(t)
	f := newFakeServer(cm("a", "x"), cm("b", "y"), cm("b", "z"))
	set := NewSet(SetOptions{NewClient: f.newClient})
	all := set.Acquire(configMaps, kube.Scope{})
	defer all.Release()
	one := set.Acquire(configMaps, kube.Scope{Namespace: "b"})
	defer one.Release()
	if err := WaitForSync(guard(t), all, one); err != nil {
		t.Fatal(err)
	}
	if clients, _ := f.counts(); clients != 1 {
		t.Errorf("%d clients, want 1: namespace b is covered by all namespaces", clients)
	}
	if got := names(one.List()); got != "b/y b/z" {
		t.Errorf("the narrowed handle lists %q, want b/y b/z", got)
	}
	if _, ok := one.Get(store.Key{Namespace: "a", Name: "x"}); ok {
		t.Error("the narrowed handle gets a/x from another namespace")
	}
	if _, ok := one.Get(store.Key{Namespace: "b", Name: "y"}); !ok {
		t.Error("the narrowed handle does not get b/y")
	}
	// InNamespace reads one namespace, within the handle's scope only.
	for _, c := range []struct {
		handle *Handle
		ns     string
		want   string
	}{{all, "a", "a/x"}, {all, "b", "b/y b/z"}, {all, "c", ""}, {one, "b", "b/y b/z"}, {one, "a", ""}} {
		if got := names(c.handle.InNamespace(c.ns)); got != c.want {
			t.Errorf("InNamespace(%q) of the handle of %q = %q, want %q", c.ns, c.handle.namespace, got, c.want)
		}
	}
	items, rv := one.Snapshot()
	if names(items) != "b/y b/z" || rv != "10" {
		t.Errorf("Snapshot = %q at %q, want b/y b/z at 10", names(items), rv)
	}
	sub := one.Subscribe(guard(t), store.SubscribeOptions{Mode: store.Ordered})
	defer sub.Close()
	var got []string
	for {
		c, err := sub.Next(guard(t))
		if err != nil {
			t.Fatal(err)
		}
		if c.Type == store.Synced {
			break
		}
		got = append(got, c.Key.String())
	}
	if fmt.Sprint(got) != "[b/y b/z]" {
		t.Errorf("the narrowed subscription starts with %v, want [b/y b/z]", got)
	}

	// A wider scope is not covered by a narrower one; other selectors are
	// not covered either.
	wider := set.Acquire(configMaps, kube.Scope{Namespace: ""})
	wider.Release()
	other := set.Acquire(configMaps, kube.Scope{Namespace: "b", LabelSelector: "app=web"})
	defer other.Release()
	if clients, _ := f.counts(); clients != 2 {
		t.Errorf("%d clients, want 2: only the labelled scope needs its own", clients)
	}
}

// TestCovers pins the covering rule Acquire applies.
func TestCovers(t *testing.T) {
	tests := []struct {
		name       string
		a, b       kube.Scope
		namespaced bool
		want       bool
	}{
		{"same scope", kube.Scope{Namespace: "a"}, kube.Scope{Namespace: "a"}, true, true},
		{"all namespaces covers one", kube.Scope{}, kube.Scope{Namespace: "a"}, true, true},
		{"one namespace does not cover all", kube.Scope{Namespace: "a"}, kube.Scope{}, true, false},
		{"another namespace", kube.Scope{Namespace: "a"}, kube.Scope{Namespace: "b"}, true, false},
		{"other selectors", kube.Scope{}, kube.Scope{Namespace: "a", LabelSelector: "x=y"}, true, false},
		{"same selectors", kube.Scope{LabelSelector: "x=y"}, kube.Scope{Namespace: "a", LabelSelector: "x=y"}, true, true},
		{"Table on and off differ", kube.Scope{}, kube.Scope{Namespace: "a", Shape: kube.Shape{Table: true}}, true, false},
		{"Pack differs", kube.Scope{Shape: kube.Shape{Pack: true}}, kube.Scope{Namespace: "a"}, true, false},
		{"Prune differs", kube.Scope{}, kube.Scope{Namespace: "a", Shape: kube.Shape{Prune: object.Prune{ManagedFields: true}}}, true, false},
		{"a Names filter is not covered", kube.Scope{}, kube.Scope{Namespace: "a", Names: []string{"x", "y"}}, true, false},
		{"the same Names filter is the same scope", kube.Scope{Names: []string{"x", "y"}}, kube.Scope{Names: []string{"x", "y"}}, true, true},
		{"cluster-scoped: the namespace means nothing", kube.Scope{Namespace: "a"}, kube.Scope{Namespace: "b"}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := kube.Resource{Namespaced: tt.namespaced}
			if got := covers(keyOf(res, tt.a), keyOf(res, tt.b)); got != tt.want {
				t.Errorf("covers = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSetClusterScoped: consumers of a cluster-scoped resource in different
// namespaces share one reflector.
func TestSetClusterScoped(t *testing.T) {
	defer goleak.VerifyNone(t)
	f := newFakeServer()
	set := NewSet(SetOptions{NewClient: f.newClient})
	a := set.Acquire(nodes, kube.Scope{Namespace: "a"})
	b := set.Acquire(nodes, kube.Scope{Namespace: "b"})
	if a.e != b.e {
		t.Error("two reflectors of nodes")
	}
	a.Release()
	b.Release()
}

// TestWaitForSyncFailure: WaitForSync over several stores returns when each
// has synced or stopped for good, with the errors of those that stopped; a
// reflector that failed serves no new handle.
func TestWaitForSyncFailure(t *testing.T) {
	defer goleak.VerifyNone(t)
	f := newFakeServer(cm("a", "x"))
	f.forbid[nodes] = true
	var listed []string
	progress := 0
	set := NewSet(SetOptions{NewClient: f.newClient, Hooks: Hooks{
		OnProgress: func(res kube.Resource, n int) { progress = n },
		OnListed:   func(res kube.Resource) { listed = append(listed, res.GVR.Resource) },
	}})
	good := set.Acquire(configMaps, kube.Scope{})
	defer good.Release()
	bad := set.Acquire(nodes, kube.Scope{})
	defer bad.Release()
	err := WaitForSync(guard(t), good, bad)
	if err == nil || !strings.Contains(err.Error(), "nodes") || !strings.Contains(err.Error(), "forbidden") {
		t.Errorf("WaitForSync = %v, want the nodes' Forbidden", err)
	}
	if bad.Err() == nil || good.Err() != nil {
		t.Errorf("Err: bad %v, good %v; want an error, nil", bad.Err(), good.Err())
	}
	select {
	case <-good.Synced():
	default:
		t.Error("configmaps did not sync")
	}
	if fmt.Sprint(listed) != "[configmaps]" || progress != 1 {
		t.Errorf("OnListed saw %v, OnProgress %d; want [configmaps], 1", listed, progress)
	}
	again := set.Acquire(nodes, kube.Scope{})
	defer again.Release()
	if again.e == bad.e {
		t.Error("a failed reflector served a new handle")
	}
	if err := WaitForSync(guard(t), again); err == nil {
		t.Error("the new nodes reflector synced; want it forbidden too")
	}
}

// TestSetConcurrentUse: consumers that come and go at once never share a
// stopped reflector, and leave nothing running.
func TestSetConcurrentUse(t *testing.T) {
	defer goleak.VerifyNone(t)
	f := newFakeServer(cm("a", "x"))
	set := NewSet(SetOptions{NewClient: f.newClient})
	ctx := guard(t)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			scope := kube.Scope{}
			if i%2 == 1 {
				scope.Namespace = "a"
			}
			l := set.Acquire(configMaps, scope)
			defer l.Release()
			if err := WaitForSync(ctx, l); err != nil {
				t.Errorf("WaitForSync: %v", err)
			}
			if got := names(l.List()); got != "a/x" {
				t.Errorf("lists %q, want a/x", got)
			}
		})
	}
	wg.Wait()
	if set.Len() != 0 {
		t.Errorf("Len = %d after every handle was released, want 0", set.Len())
	}
}

// TestHandleSubscribeFrom: a Set with a Window lets a handle resume after
// the list's resourceVersion, and tells it when it asks for an older one.
func TestHandleSubscribeFrom(t *testing.T) {
	defer goleak.VerifyNone(t)
	f := newFakeServer(cm("a", "x"))
	set := NewSet(SetOptions{NewClient: f.newClient, Window: 16})
	l := set.Acquire(configMaps, kube.Scope{})
	defer l.Release()
	if err := WaitForSync(guard(t), l); err != nil {
		t.Fatal(err)
	}
	sub, err := l.SubscribeFrom(guard(t), "10", store.SubscribeOptions{})
	if err != nil {
		t.Fatalf("SubscribeFrom(10) = %v, want a subscription", err)
	}
	sub.Close()
	if _, err := l.SubscribeFrom(guard(t), "9", store.SubscribeOptions{}); !errors.Is(err, store.ErrTooOld) {
		t.Errorf("SubscribeFrom(9) = %v, want ErrTooOld", err)
	}
	if l.ResourceVersion() != "10" || l.Len() != 1 {
		t.Errorf("ResourceVersion, Len = %q, %d; want 10, 1", l.ResourceVersion(), l.Len())
	}
}

// TestSetScopeRewrite: SetOptions.Scope makes a plain consumer (a
// controller's Scope{}) share the reflector of a daemon's Table and Pack
// scope, in all namespaces or narrowed to one.
func TestSetScopeRewrite(t *testing.T) {
	defer goleak.VerifyNone(t)
	f := newFakeServer(cm("a", "x"), cm("b", "y"))
	served := kube.Scope{Shape: kube.Shape{Table: true, Pack: true}}
	set := NewSet(SetOptions{NewClient: f.newClient, Scope: func(s kube.Scope) kube.Scope {
		s.Table, s.Pack = true, true
		return s
	}})
	daemon := set.Acquire(configMaps, served)
	defer daemon.Release()
	plain := set.Acquire(configMaps, kube.Scope{})
	defer plain.Release()
	one := set.Acquire(configMaps, kube.Scope{Namespace: "b"})
	defer one.Release()
	if err := WaitForSync(guard(t), daemon, plain, one); err != nil {
		t.Fatal(err)
	}
	if clients, lists := f.counts(); clients != 1 || lists != 1 {
		t.Errorf("%d clients, %d LISTs; want 1, 1: every scope is rewritten to the served one", clients, lists)
	}
	if got := names(one.List()); got != "b/y" {
		t.Errorf("the narrowed handle lists %q, want b/y", got)
	}
}

// TestSetExpect: expected consumers of one resource and scope that prune
// differently share one reflector pruning what all of them prune; a
// consumer that did not tell Expect gets the pruning it asked for.
func TestSetExpect(t *testing.T) {
	defer goleak.VerifyNone(t)
	slim := object.Prune{MetadataOnlyUnless: `"Gen"`, ManagedFields: true}
	managed := object.Prune{ManagedFields: true, LastApplied: true}
	all := func(p object.Prune) kube.Scope { return kube.Scope{Shape: kube.Shape{Prune: p}} }
	inA := func(p object.Prune) kube.Scope { return kube.Scope{Namespace: "a", Shape: kube.Shape{Prune: p}} }
	tests := []struct {
		name       string
		expect     []kube.Scope
		acquire    []kube.Scope
		wantPrunes []object.Prune // of the clients started, in order
	}{
		{"one expected", []kube.Scope{all(slim)}, []kube.Scope{all(slim)}, []object.Prune{slim}},
		{"two expected share the meet", []kube.Scope{all(slim), all(managed)}, []kube.Scope{all(slim), all(managed)}, []object.Prune{{ManagedFields: true}}},
		{"whole and slim", []kube.Scope{all(object.Prune{}), all(slim)}, []kube.Scope{all(slim), all(object.Prune{})}, []object.Prune{{}}},
		{"unexpected keeps its own", []kube.Scope{all(slim), all(object.Prune{})}, []kube.Scope{all(managed), all(slim)}, []object.Prune{managed, {}}},
		// A consumer of one namespace reads the reflector of all namespaces.
		{"one namespace covered", []kube.Scope{inA(slim), all(managed)}, []kube.Scope{all(managed), inA(slim)}, []object.Prune{{ManagedFields: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeServer(cm("a", "x"))
			set := NewSet(SetOptions{NewClient: f.newClient})
			for _, sc := range tt.expect {
				set.Expect(configMaps, sc)
			}
			var handles []*Handle
			for _, sc := range tt.acquire {
				handles = append(handles, set.Acquire(configMaps, sc))
			}
			if err := WaitForSync(guard(t), handles...); err != nil {
				t.Fatal(err)
			}
			for _, l := range handles {
				l.Release()
			}
			var got []object.Prune
			for _, s := range f.scopes {
				got = append(got, s.Prune)
			}
			if !slices.Equal(got, tt.wantPrunes) {
				t.Errorf("clients prune %+v, want %+v", got, tt.wantPrunes)
			}
		})
	}
}
