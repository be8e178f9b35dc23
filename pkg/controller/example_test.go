package controller_test

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-reflect/kubectl-reflect/internal/reflectortest"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/controller"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
)

var (
	generators = kube.Resource{GVR: schema.GroupVersionResource{Group: "kubectl-reflect.io", Version: "v1alpha1", Resource: "configmapgenerators"}, Kind: "ConfigMapGenerator", Namespaced: true}
	configMaps = kube.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Kind: "ConfigMap", Namespaced: true}
)

// Two controllers on one reflector.Set: one For ConfigMapGenerators that
// Owns ConfigMaps, one For ConfigMaps. They read ConfigMaps from one shared
// store, so the server is asked for one LIST and one WATCH per kind. A
// reconcile reads the current state from its inputs, whatever triggered it
// (the trigger is for logs). The server is an in-memory fake; on a real one
// the Set's clients are reflector.RESTClients.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	srv := reflectortest.NewServer()
	srv.Apply(generators, `{"apiVersion":"kubectl-reflect.io/v1alpha1","kind":"ConfigMapGenerator","metadata":{"namespace":"default","name":"g"}}`)
	srv.Apply(configMaps, ownedConfigMap(`"a":"1"`))
	set := reflector.NewSet(reflector.SetOptions{NewClient: srv.NewClient})
	lines := make(chan string)

	gen := controller.NewBuilder("generator", set)
	gen.For(generators, kube.Scope{})
	owned := gen.Owns(configMaps, kube.Scope{})
	generator, err := gen.Build(controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
		t, _ := controller.TriggerFrom(ctx)
		cm, ok := owned.Get(controller.Request{Namespace: req.Namespace, Name: req.Name + "-data"})
		if !ok {
			return controller.Result{}, nil // the next change of it triggers this again
		}
		typed, err := controller.Decode[corev1.ConfigMap](cm)
		if err != nil {
			return controller.Result{}, controller.Terminal(err)
		}
		lines <- fmt.Sprintf("generator: %s (%s %s %s) owns data %v", req, t.Kind, t.Resource, t.Key, typed.Data)
		return controller.Result{}, nil
	}), controller.Options{})
	if err != nil {
		panic(err)
	}

	audit := controller.NewBuilder("audit", set)
	audit.For(configMaps, kube.Scope{})
	auditor, err := audit.Build(controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
		lines <- fmt.Sprintf("audit: %s", req)
		return controller.Result{}, nil
	}), controller.Options{})
	if err != nil {
		panic(err)
	}

	done := make(chan error, 2)
	for _, c := range []*controller.Controller{generator, auditor} {
		go func() { done <- c.Run(ctx) }()
	}
	print := func(n int) { // the reconciles of two controllers, in any order
		var got []string
		for range n {
			got = append(got, <-lines)
		}
		slices.Sort(got)
		for _, l := range got {
			fmt.Println(l)
		}
	}
	print(2) // the initial state: each root once
	srv.Apply(configMaps, ownedConfigMap(`"a":"2"`))
	print(2) // the owned ConfigMap changed: its owner and itself
	lists, watches := srv.Counts()
	fmt.Println("lists:", lists, "watches:", watches)
	cancel()
	<-done
	<-done
	// Output:
	// audit: default/g-data
	// generator: default/g (change configmapgenerators.kubectl-reflect.io default/g) owns data map[a:1]
	// audit: default/g-data
	// generator: default/g (change configmaps default/g-data) owns data map[a:2]
	// lists: 2 watches: 2
}

// ownedConfigMap is default/g-data, controlled by the generator g.
func ownedConfigMap(data string) string {
	return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"default","name":"g-data","ownerReferences":[` +
		`{"apiVersion":"kubectl-reflect.io/v1alpha1","kind":"ConfigMapGenerator","name":"g","uid":"u","controller":true}]},` +
		`"data":{` + data + `}}`
}
