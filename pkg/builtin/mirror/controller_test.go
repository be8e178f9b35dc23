package mirror

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"

	"github.com/kubectl-reflect/kubectl-reflect/internal/reflectortest"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/builtin"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/controller"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// These tests run the mirror's controllers in a synctest bubble against an
// in-memory server (internal/reflectortest) that their writes go to,
// through a fake clientset whose apply and delete reactors forward them:
// synctest.Wait returns once every change and every reconcile it
// triggers went through. The real server is the e2e tests' (test/controllers).

// world is the in-memory server, the mirror's writes to it, and a handle
// to read the result.
type world struct {
	t        *testing.T
	srv      *reflectortest.Server
	set      *reflector.Set
	recorder *events.FakeRecorder
	writes   atomic.Int64 // applies and deletes the mirror made
}

func newWorld(t *testing.T) *world {
	w := &world{t: t, srv: reflectortest.NewServer(), recorder: events.NewFakeRecorder(100)}
	w.set = reflector.NewSet(reflector.SetOptions{NewClient: w.srv.NewClient})
	return w
}

// run starts the mirror's controllers; the returned func stops them.
func (w *world) run() (stop func()) {
	cs := fake.NewClientset()
	for _, k := range []kind{secrets, configMaps} {
		cs.PrependReactor("patch", k.resource.GVR.Resource, func(a k8stesting.Action) (bool, runtime.Object, error) {
			w.writes.Add(1)
			doc := string(a.(k8stesting.PatchAction).GetPatch())
			if a.(k8stesting.PatchAction).GetPatchType() != types.ApplyPatchType {
				return true, nil, fmt.Errorf("not an apply: %s", doc)
			}
			o, err := w.srv.Apply(k.resource, doc)
			if err != nil {
				return true, nil, err
			}
			var out runtime.Object = &corev1.Secret{}
			if k.resource.Kind == "ConfigMap" {
				out = &corev1.ConfigMap{}
			}
			return true, out, json.Unmarshal(o.JSON(), out)
		})
		cs.PrependReactor("delete", k.resource.GVR.Resource, func(a k8stesting.Action) (bool, runtime.Object, error) {
			w.writes.Add(1)
			d := a.(k8stesting.DeleteAction)
			w.srv.Delete(k.resource, store.Key{Namespace: d.GetNamespace(), Name: d.GetName()})
			return true, nil, nil
		})
	}
	env := builtin.Env{Set: w.set, Kube: cs, FieldManager: "kubectl-reflect", Recorder: w.recorder}
	env.Options.OnReconcile = func(rec controller.ReconcileRecord) {
		if rec.Err != nil {
			w.t.Errorf("reconcile of %s failed: %v", rec.Request, rec.Err)
		}
	}
	cs2, err := New(w.t.Context(), env)
	if err != nil {
		w.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(w.t.Context())
	done := make(chan struct{}, len(cs2))
	for _, c := range cs2 {
		go func() { _ = c.Run(ctx); done <- struct{}{} }()
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			for range cs2 {
				<-done
			}
		})
	}
}

func (w *world) apply(res kube.Resource, doc string) {
	w.t.Helper()
	if _, err := w.srv.Apply(res, doc); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) namespace(name string, labels ...string) {
	l := map[string]string{}
	for i := 0; i+1 < len(labels); i += 2 {
		l[labels[i]] = labels[i+1]
	}
	raw, _ := json.Marshal(l)
	w.apply(namespaces, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"`+name+`","labels":`+string(raw)+`}}`)
}

func (w *world) configMap(ns, name string, ann map[string]string, data map[string]string) {
	raw, _ := json.Marshal(corev1.ConfigMap{
		TypeMeta:   metaType("ConfigMap"),
		ObjectMeta: objectMeta(ns, name, ann),
		Data:       data,
	})
	w.apply(configMaps.resource, string(raw))
}

// get reads the object of k at key whole, from a store of its own (the
// mirror's keeps only the metadata of objects that are neither sources
// nor copies).
func (w *world) get(k kind, key store.Key) (*item, bool) {
	w.t.Helper()
	l := w.set.Acquire(k.resource, kube.Scope{})
	defer l.Release()
	if err := reflector.WaitForSync(w.t.Context(), l); err != nil {
		w.t.Fatal(err)
	}
	o, ok := l.Get(key)
	if !ok {
		return nil, false
	}
	it, _, err := k.decodeItem(o)
	if err != nil {
		w.t.Fatal(err)
	}
	return it, true
}

func metaType(kind string) metav1.TypeMeta { return metav1.TypeMeta{APIVersion: "v1", Kind: kind} }

func objectMeta(ns, name string, ann map[string]string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: ann, UID: types.UID("uid-" + ns + "-" + name)}
}

func (w *world) events() []string {
	var out []string
	for {
		select {
		case e := <-w.recorder.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

func TestMirrorInMemory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t)
		for _, n := range []string{"src", "a", "b", "other"} {
			w.namespace(n)
		}
		auto := map[string]string{annAllowed: "true", annAutoEnabled: "true", annAutoNamespaces: "a,b,c"}
		w.configMap("src", "s", auto, map[string]string{"k": "v1"})
		w.configMap("b", "s", nil, map[string]string{"mine": "yes"}) // a stranger where a copy belongs
		w.configMap("other", "manual", map[string]string{annReflects: "src/s"}, nil)
		stop := w.run()
		defer stop()
		synctest.Wait()

		copyA, ok := w.get(configMaps, store.Key{Namespace: "a", Name: "s"})
		if !ok || copyA.payload.Text["k"] != "v1" || copyA.annotations[annAutoReflects] != "True" || copyA.annotations[annReflects] != "src/s" {
			t.Fatalf("a/s = %+v, want an automatic copy of src/s", copyA)
		}
		if stranger, _ := w.get(configMaps, store.Key{Namespace: "b", Name: "s"}); stranger.props.isMirror || stranger.payload.Text["mine"] != "yes" {
			t.Errorf("the stranger b/s was written: %+v", stranger)
		}
		read := inputScope()
		read.Pack = true // as a Builder's inputs
		mirrors := w.set.Acquire(configMaps.resource, read)
		if o, _ := mirrors.Get(store.Key{Namespace: "b", Name: "s"}); o == nil || bytes.Contains(o.JSON(), []byte(`"mine"`)) {
			t.Errorf("the mirror's store holds the stranger b/s whole: %v", o)
		}
		if o, _ := mirrors.Get(store.Key{Namespace: "src", Name: "s"}); o == nil || !bytes.Contains(o.JSON(), []byte(`"v1"`)) {
			t.Errorf("the mirror's store holds the source src/s without its data: %v", o)
		}
		mirrors.Release()
		if evs := w.events(); len(evs) == 0 || !strings.Contains(strings.Join(evs, "\n"), "NotAMirror") {
			t.Errorf("events %q, want a NotAMirror warning", evs)
		}
		if m, _ := w.get(configMaps, store.Key{Namespace: "other", Name: "manual"}); m.payload.Text["k"] != "v1" || m.annotations[annAutoReflects] != "False" {
			t.Errorf("other/manual = %+v, want a manual copy of src/s", m)
		}

		// Quiet once done: nothing written without a change.
		w.writes.Store(0)
		synctest.Wait()
		if n := w.writes.Load(); n != 0 {
			t.Errorf("%d writes without a change", n)
		}

		w.configMap("src", "s", auto, map[string]string{"k": "v2"})
		w.namespace("c")
		synctest.Wait()
		for _, ns := range []string{"a", "c", "other"} {
			key := store.Key{Namespace: ns, Name: "s"}
			if ns == "other" {
				key.Name = "manual"
			}
			if c, ok := w.get(configMaps, key); !ok || c.payload.Text["k"] != "v2" {
				t.Errorf("%s = %+v, want it to follow the source (v2)", key, c)
			}
		}

		// Narrowed: the copy in c goes, a stays.
		narrowed := map[string]string{annAllowed: "true", annAutoEnabled: "true", annAutoNamespaces: "a"}
		w.configMap("src", "s", narrowed, map[string]string{"k": "v2"})
		synctest.Wait()
		if _, ok := w.get(configMaps, store.Key{Namespace: "c", Name: "s"}); ok {
			t.Error("c/s survived its namespace leaving the auto namespaces")
		}
		if _, ok := w.get(configMaps, store.Key{Namespace: "a", Name: "s"}); !ok {
			t.Error("a/s went")
		}

		// Source gone: automatic copies go, the manual one stays.
		w.srv.Delete(configMaps.resource, store.Key{Namespace: "src", Name: "s"})
		synctest.Wait()
		if _, ok := w.get(configMaps, store.Key{Namespace: "a", Name: "s"}); ok {
			t.Error("a/s survived its source")
		}
		if _, ok := w.get(configMaps, store.Key{Namespace: "other", Name: "manual"}); !ok {
			t.Error("the manual copy went with its source (emberstack leaves it)")
		}
		stop()
	})
}
