package watch_test

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-reflect/kubectl-reflect/internal/reflectortest"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

var (
	configMaps = kube.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Kind: "ConfigMap", Namespaced: true}
	pods       = kube.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Kind: "Pod", Namespaced: true}
	secrets    = kube.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, Kind: "Secret", Namespaced: true}
)

// kindEvent is one kind's event, as the watchers of several kinds send it
// to one reader.
type kindEvent struct {
	kind string
	ev   watch.Event[*object.Object]
}

// A watch of several kinds: one Watcher per kind, each running until its
// context ends (a Watcher resumes and relists by itself; only an error no
// retry can fix ends it), their typed events read by one goroutine. The
// server here is an in-memory fake; kube.NewClient is the client of a real
// one.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := reflectortest.NewServer()
	srv.Apply(configMaps, `{"metadata":{"namespace":"default","name":"settings"}}`)
	srv.Apply(pods, `{"metadata":{"namespace":"default","name":"web"}}`)

	events := make(chan kindEvent)
	for _, res := range []kube.Resource{configMaps, pods} {
		w := watch.New(srv.NewClient(res, kube.Scope{}), watch.Options{List: watch.ListWhole})
		go w.Run(ctx, func(ctx context.Context, ev watch.Event[*object.Object]) error {
			select {
			case events <- kindEvent{res.Kind, ev}:
			case <-ctx.Done():
			}
			return nil
		})
	}

	seen := map[string][]string{}
	read := func(n int) {
		for range n {
			ke := <-events
			line := ke.ev.Type.String()
			if ke.ev.Object != nil {
				line += " " + store.KeyOf(ke.ev.Object).String()
			}
			if ke.ev.ResourceVersion != "" {
				line += " at " + ke.ev.ResourceVersion
			}
			seen[ke.kind] = append(seen[ke.kind], line)
		}
	}
	read(6) // each kind's Init, InitApply, InitDone: the state listed
	srv.Apply(configMaps, `{"metadata":{"namespace":"default","name":"settings"},"data":{"a":"1"}}`)
	srv.Delete(pods, store.Key{Namespace: "default", Name: "web"})
	read(2) // the live changes
	for _, kind := range []string{"ConfigMap", "Pod"} {
		for _, line := range seen[kind] {
			fmt.Println(kind, line)
		}
	}
	// Output:
	// ConfigMap Init
	// ConfigMap InitApply default/settings
	// ConfigMap InitDone at 2
	// ConfigMap Apply default/settings at 3
	// Pod Init
	// Pod InitApply default/web
	// Pod InitDone at 2
	// Pod Delete default/web at 4
}

// Run returns only when its context ends or when no retry can help: here
// the server refuses the list (403 Forbidden), a TerminalError.
func ExampleIsTerminal() {
	srv := reflectortest.NewServer()
	srv.Forbid(secrets)
	w := watch.New(srv.NewClient(secrets, kube.Scope{}), watch.Options{List: watch.ListWhole})
	err := w.Run(context.Background(), func(context.Context, watch.Event[*object.Object]) error { return nil })
	fmt.Println(watch.IsTerminal(err))
	// Output:
	// true
}

// Applied adapts a function of objects to a watcher's stream: it is given
// every object listed or applied, and nothing else.
func ExampleApplied() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := reflectortest.NewServer()
	srv.Apply(configMaps, `{"metadata":{"namespace":"default","name":"settings"}}`)
	applied := make(chan string)
	w := watch.New(srv.NewClient(configMaps, kube.Scope{}), watch.Options{List: watch.ListWhole})
	go w.Run(ctx, watch.Applied(func(ctx context.Context, o *object.Object) error {
		applied <- o.Name + " at " + o.ResourceVersion
		return nil
	}))
	fmt.Println(<-applied)
	srv.Apply(configMaps, `{"metadata":{"namespace":"default","name":"other"}}`)
	fmt.Println(<-applied)
	// Output:
	// settings at 1
	// other at 2
}

// Map makes a Client of typed objects: here every Pod is decoded once, as
// the client reads it, and the watcher's events are of *corev1.Pod.
func ExampleMap() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := reflectortest.NewServer()
	srv.Apply(pods, `{"metadata":{"namespace":"default","name":"web"},"status":{"phase":"Pending"}}`)
	typed := watch.Map(srv.NewClient(pods, kube.Scope{}), func(o *object.Object) (*corev1.Pod, error) {
		pod := &corev1.Pod{}
		return pod, json.Unmarshal(o.JSON(), pod)
	})
	phases := make(chan string)
	w := watch.New(typed, watch.Options{List: watch.ListWhole})
	go w.Run(ctx, watch.Applied(func(ctx context.Context, pod *corev1.Pod) error {
		phases <- pod.Name + " " + string(pod.Status.Phase)
		return nil
	}))
	fmt.Println(<-phases)
	srv.Apply(pods, `{"metadata":{"namespace":"default","name":"web"},"status":{"phase":"Running"}}`)
	fmt.Println(<-phases)
	// Output:
	// web Pending
	// web Running
}
