package store_test

import (
	"context"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

func pod(name, rv, phase string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, ResourceVersion: rv},
		Status:     corev1.PodStatus{Phase: corev1.PodPhase(phase)},
	}
}

// One store of typed Pods, one writer and two subscribers: one reads every
// change in order as it comes, the other is slow and reads late. The writer
// never waits for either, and the slow one holds up no one: its Coalescing
// queue keeps only the latest version of each pod, the version it last saw
// as Old.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pods := store.New(store.Options[*corev1.Pod]{})
	fast := pods.Subscribe(ctx, store.SubscribeOptions{Mode: store.Ordered})
	slow := pods.Subscribe(ctx, store.SubscribeOptions{Mode: store.Coalescing})
	defer fast.Close()
	defer slow.Close()

	// The writer: what a watch.Watcher's Run gives Apply, here by hand. The
	// first list, then 100 changes of web's status.
	pods.Apply(ctx, watch.Event[*corev1.Pod]{Type: watch.Init})
	pods.Apply(ctx, watch.Event[*corev1.Pod]{Type: watch.InitApply, Object: pod("web", "1", "Pending")})
	pods.Apply(ctx, watch.Event[*corev1.Pod]{Type: watch.InitDone, ResourceVersion: "1"})
	for rv := 2; rv <= 101; rv++ {
		phase := "Pending"
		if rv == 101 {
			phase = "Running"
		}
		pods.Apply(ctx, watch.Event[*corev1.Pod]{Type: watch.Apply, Object: pod("web", strconv.Itoa(rv), phase), ResourceVersion: strconv.Itoa(rv)})
	}
	fmt.Println("written; the store is at", pods.ResourceVersion())

	// The fast subscriber has every change queued, in order.
	applied := 0
	for {
		c, ok, err := fast.TryNext()
		if err != nil || !ok {
			break
		}
		if c.Type == store.Applied {
			applied++
		}
	}
	fmt.Println("fast: applied", applied, "times")

	// The slow one reads at last: web once, in its latest version, in the
	// place of its first pending change (before the first list's Synced).
	for {
		c, err := slow.Next(ctx)
		if err != nil {
			break
		}
		if c.Type == store.Synced {
			fmt.Println("slow:", c.Type, "at", c.ResourceVersion)
			break
		}
		fmt.Println("slow:", c.Type, c.Key, c.Object.Status.Phase, "at", c.ResourceVersion)
	}
	web, _ := pods.Get(store.Key{Namespace: "default", Name: "web"})
	fmt.Println("get:", web.Name, web.Status.Phase)
	// Output:
	// written; the store is at 101
	// fast: applied 101 times
	// slow: Applied default/web Running at 101
	// slow: Synced at 1
	// get: web Running
}
