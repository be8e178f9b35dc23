package controlplane

import (
	"bufio"
	"context"
	"fmt"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// TestClusterWithSchedulerAndKwok: with kube-scheduler and kwok, a
// Deployment's pods are scheduled onto kwok's nodes and Running there with
// an IP of their node's pod CIDR (and the node's as their host IP); node
// Leases renew; a rollout, a scale and a deletion complete as in a real
// cluster; Stop leaves no kube-scheduler or kwok behind.
func TestClusterWithSchedulerAndKwok(t *testing.T) {
	skipIfShort(t)
	began := time.Now()
	const nodes, replicas = 10, 20
	cp := StartForTest(t, Options{Scheduler: true, Kwok: &KwokOptions{Nodes: nodes, NodeLeaseDuration: 8 * time.Second}})
	t.Logf("started with %d Ready nodes in %s", nodes, time.Since(began).Round(10*time.Millisecond))
	ctx := t.Context()
	cs := kubernetes.NewForConfigOrDie(cp.harnessConfig())

	names := cp.KwokNodes()
	if len(names) != nodes || names[0] != "kwok-node-0" {
		t.Fatalf("KwokNodes() = %v", names)
	}
	podCIDR, nodeIP := map[string]netip.Prefix{}, map[string]string{}
	for _, name := range names {
		n, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !NodeReady(n) || n.Annotations[KwokNodeAnnotation] != "fake" {
			t.Errorf("node %s: Ready %v, annotations %v", name, NodeReady(n), n.Annotations)
		}
		podCIDR[name] = netip.MustParsePrefix(n.Spec.PodCIDR)
		for _, a := range n.Status.Addresses {
			if a.Type == corev1.NodeInternalIP {
				nodeIP[name] = a.Address
			}
		}
		if nodeIP[name] == "" {
			t.Errorf("node %s has no internal IP: %v", name, n.Status.Addresses)
		}
	}

	step := time.Now()
	apps, deps, err := cp.MakeShape(ctx, Shape{Namespace: "shape", Prefix: "web", Deployments: 1, Replicas: replicas})
	if err != nil {
		t.Fatal(err)
	}
	if len(deps) != 1 || deps[0] != "web-0" {
		t.Fatalf("MakeShape made %v", deps)
	}
	running := awaitPods(t, cs, "shape", "app=web-0", replicas, "app:v1")
	t.Logf("%d pods Running in %s", replicas, time.Since(step).Round(10*time.Millisecond))
	for _, p := range running {
		ip, err := netip.ParseAddr(p.Status.PodIP)
		if err != nil || !podCIDR[p.Spec.NodeName].Contains(ip) || p.Status.HostIP != nodeIP[p.Spec.NodeName] {
			t.Errorf("pod %s on node %q has IP %q and host IP %q, want one of the node's pod CIDR and the node's",
				p.Name, p.Spec.NodeName, p.Status.PodIP, p.Status.HostIP)
		}
	}
	scheduled, err := cs.CoreV1().Events("shape").List(ctx, metav1.ListOptions{FieldSelector: "reason=Scheduled"})
	if err != nil {
		t.Fatal(err)
	}
	if len(scheduled.Items) < replicas {
		t.Errorf("%d Scheduled events, want %d or more", len(scheduled.Items), replicas)
	}

	step = time.Now()
	more, err := cp.AddNodes(ctx, 2)
	if err != nil || len(more) != 2 || more[0] != "kwok-node-10" {
		t.Fatalf("AddNodes: %v, %v", more, err)
	}
	names = cp.KwokNodes()
	t.Logf("2 more nodes Ready in %s", time.Since(step).Round(10*time.Millisecond))

	step = time.Now()
	awaitLeasesRenewed(t, cs, names)
	t.Logf("every node Lease renewed in %s", time.Since(step).Round(10*time.Millisecond))

	step = time.Now()
	image, err := apps.Rollout(ctx, "web-0")
	if err != nil || image != "app:v2" {
		t.Fatalf("Rollout: %q, %v", image, err)
	}
	if err := apps.AwaitComplete(ctx, "web-0"); err != nil {
		t.Fatal(err)
	}
	awaitPods(t, cs, "shape", "app=web-0", replicas, "app:v2")
	rss, err := cs.AppsV1().ReplicaSets("shape").List(ctx, metav1.ListOptions{LabelSelector: "app=web-0"})
	if err != nil || len(rss.Items) != 2 {
		t.Errorf("after a rollout, ReplicaSets %v, %v; want the old and the new", len(rss.Items), err)
	}
	t.Logf("rollout of %d pods complete in %s", replicas, time.Since(step).Round(10*time.Millisecond))

	step = time.Now()
	if err := apps.Scale(ctx, "web-0", 5); err != nil {
		t.Fatal(err)
	}
	if err := apps.AwaitComplete(ctx, "web-0"); err != nil {
		t.Fatal(err)
	}
	awaitPods(t, cs, "shape", "app=web-0", 5, "app:v2")
	if err := apps.Delete(ctx, "web-0"); err != nil {
		t.Fatal(err)
	}
	if err := apps.AwaitGone(ctx, "web-0"); err != nil {
		t.Fatal(err)
	}
	t.Logf("scaled to 5 and deleted in %s", time.Since(step).Round(10*time.Millisecond))

	cp.mu.Lock()
	procs := []*process{cp.scheduler, cp.kwok}
	cp.mu.Unlock()
	for _, p := range procs {
		t.Logf("%s: %s", p.name, memoryOf(p.pid()))
	}
	if err := cp.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		if !p.exited() || processAlive(p.pid()) || groupAlive(p.pid()) {
			t.Errorf("%s (pid %d) still alive after Stop", p.name, p.pid())
		}
	}
	t.Logf("wall time %s", time.Since(began).Round(10*time.Millisecond))
}

// TestShapeNeedsKwok: without kwok there are no nodes to add and no shape to
// make, and saying so beats waiting for pods that never run.
func TestShapeNeedsKwok(t *testing.T) {
	cp := cluster.Get(t)
	if _, err := cp.AddNodes(t.Context(), 1); err == nil {
		t.Errorf("AddNodes without kwok succeeded")
	}
	if _, _, err := cp.MakeShape(t.Context(), Shape{Namespace: "no-shape", Deployments: 1, Replicas: 1}); err == nil {
		t.Errorf("MakeShape without kube-scheduler and kwok succeeded")
	}
}

// awaitPods waits until the pods of selector in namespace are exactly n, all
// Running and Ready with image on a node, and returns them.
func awaitPods(t *testing.T, cs kubernetes.Interface, namespace, selector string, n int, image string) []*corev1.Pod {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	lw := cache.NewFilteredListWatchFromClient(cs.CoreV1().RESTClient(), "pods", namespace, func(o *metav1.ListOptions) {
		o.LabelSelector = selector
	})
	var got []*corev1.Pod
	var last string
	err := awaitState(ctx, lw, &corev1.Pod{}, func(pods []*corev1.Pod) (bool, error) {
		got = pods
		if len(pods) != n {
			last = fmt.Sprintf("%d pods", len(pods))
			return false, nil
		}
		for _, p := range pods {
			if p.Status.Phase != corev1.PodRunning || !podReady(p) || p.Spec.NodeName == "" || p.Spec.Containers[0].Image != image {
				last = fmt.Sprintf("pod %s: %s, ready %v, node %q, image %s",
					p.Name, p.Status.Phase, podReady(p), p.Spec.NodeName, p.Spec.Containers[0].Image)
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("await %d pods %s Running with %s: %v (last: %s)", n, selector, image, err, last)
	}
	return got
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// awaitLeasesRenewed waits until the Lease of each named node has been
// renewed since this call began watching.
func awaitLeasesRenewed(t *testing.T, cs kubernetes.Interface, nodes []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	first := map[string]time.Time{}
	lw := cache.NewListWatchFromClient(cs.CoordinationV1().RESTClient(), "leases", NodeLeaseNamespace, fields.Everything())
	err := awaitState(ctx, lw, &coordinationv1.Lease{}, func(leases []*coordinationv1.Lease) (bool, error) {
		renewed := map[string]bool{}
		for _, l := range leases {
			if l.Spec.RenewTime == nil {
				continue
			}
			at := l.Spec.RenewTime.Time
			if f, ok := first[l.Name]; !ok {
				first[l.Name] = at
			} else if at.After(f) {
				renewed[l.Name] = true
			}
		}
		return allOf(nodes, renewed), nil
	})
	if err != nil {
		t.Fatalf("await node Leases renewed: %v (first renewals seen: %v)", err, first)
	}
}

// memoryOf describes a process's resident memory now and at its peak, from
// /proc (Linux).
func memoryOf(pid int) string {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "memory unknown: " + err.Error()
	}
	defer f.Close()
	var parts []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && (k == "VmRSS" || k == "VmHWM") {
			parts = append(parts, k+" "+strings.Join(strings.Fields(v), " "))
		}
	}
	return strings.Join(parts, ", ")
}
