package controlplane

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"slices"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// NodeLeaseNamespace holds each node's Lease, named after the node.
const NodeLeaseNamespace = corev1.NamespaceNodeLease

// fakeNode is the Node kwokctl's node template (kustomize/kwokctl/resource/
// node.yaml in kwok's module) makes for node index: kwok's annotation, the
// labels a kubelet sets, a pod CIDR and an internal IP of its own (and its
// name as its host name), and
// kwokctl's allocatable (32 CPUs, 256Gi, 110 pods). The pod CIDRs start at
// 10.244.0.0/24, not kwokctl's 10.0.0.0/24, which is this kube-apiserver's
// service range. No taint: every node here is kwok's, so workloads need no
// toleration.
func fakeNode(name string, index int) *corev1.Node {
	resources := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("32"),
		corev1.ResourceMemory: resource.MustParse("256Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	podCIDR := addToIPv4(netip.MustParseAddr("10.244.0.0"), uint32(index)<<8).String() + "/24"
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: name,
			Annotations: map[string]string{
				KwokNodeAnnotation:             "fake",
				"node.alpha.kubernetes.io/ttl": "0",
			},
			Labels: map[string]string{
				"beta.kubernetes.io/arch":       "amd64",
				"beta.kubernetes.io/os":         "linux",
				"kubernetes.io/arch":            "amd64",
				"kubernetes.io/hostname":        name,
				"kubernetes.io/os":              "linux",
				"kubernetes.io/role":            "agent",
				"node-role.kubernetes.io/agent": "",
				"type":                          "kwok",
			},
		},
		Spec: corev1.NodeSpec{PodCIDR: podCIDR, PodCIDRs: []string{podCIDR}},
		Status: corev1.NodeStatus{
			// Both, as a kubelet reports them: kwok's node-initialize Stage
			// rewrites the addresses, dropping them, when one is missing.
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: addToIPv4(netip.MustParseAddr("192.0.2.1"), uint32(index)).String()},
				{Type: corev1.NodeHostName, Address: name},
			},
			Allocatable: resources,
			Capacity:    resources.DeepCopy(),
			NodeInfo:    corev1.NodeSystemInfo{Architecture: "amd64", OperatingSystem: "linux"},
		},
	}
}

// addToIPv4 returns the address n after a.
func addToIPv4(a netip.Addr, n uint32) netip.Addr {
	b := a.As4()
	binary.BigEndian.PutUint32(b[:], binary.BigEndian.Uint32(b[:])+n)
	return netip.AddrFrom4(b)
}

// AddNodes creates n more fake nodes for kwok, named kwok-node-0,
// kwok-node-1, ... in the order created, and waits until each is Ready and
// has its Lease. It returns their names. It fails if Options.Kwok was not
// set.
func (c *ControlPlane) AddNodes(ctx context.Context, n int) ([]string, error) {
	c.nodesMu.Lock()
	defer c.nodesMu.Unlock()
	c.mu.Lock()
	kwok, stopped := c.kwok, c.stopped
	c.mu.Unlock()
	if stopped {
		return nil, errStopped
	}
	if kwok == nil {
		return nil, errors.New("no kwok: set Options.Kwok to have fake nodes")
	}
	cs, err := kubernetes.NewForConfig(c.harnessConfig())
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, n)
	for i := len(c.nodes); i < len(c.nodes)+n; i++ {
		node := fakeNode(fmt.Sprintf("kwok-node-%d", i), i)
		if _, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
			return nil, fmt.Errorf("create node %s: %w", node.Name, err)
		}
		names = append(names, node.Name)
	}
	c.nodes = append(c.nodes, names...)
	ctx, cancel := whileRunning(ctx, c.opts.ReadyTimeout, kwok)
	defer cancel()
	if err := awaitNodesUp(ctx, cs, names); err != nil {
		return nil, fmt.Errorf("kwok's nodes: %w", reasonFor(ctx, err))
	}
	return names, nil
}

// KwokNodes are the names of the fake nodes created so far, in order.
func (c *ControlPlane) KwokNodes() []string {
	c.nodesMu.Lock()
	defer c.nodesMu.Unlock()
	return slices.Clone(c.nodes)
}

// awaitNodesUp waits until each named node is Ready and has a Lease.
func awaitNodesUp(ctx context.Context, cs kubernetes.Interface, names []string) error {
	err := awaitState(ctx, cache.NewListWatchFromClient(cs.CoreV1().RESTClient(), "nodes", "", everything()),
		&corev1.Node{}, func(nodes []*corev1.Node) (bool, error) {
			ready := map[string]bool{}
			for _, n := range nodes {
				ready[n.Name] = NodeReady(n)
			}
			return allOf(names, ready), nil
		})
	if err != nil {
		return fmt.Errorf("nodes Ready: %w", err)
	}
	err = awaitState(ctx, cache.NewListWatchFromClient(cs.CoordinationV1().RESTClient(), "leases", NodeLeaseNamespace, everything()),
		&coordinationv1.Lease{}, func(leases []*coordinationv1.Lease) (bool, error) {
			held := map[string]bool{}
			for _, l := range leases {
				held[l.Name] = l.Spec.RenewTime != nil
			}
			return allOf(names, held), nil
		})
	if err != nil {
		return fmt.Errorf("node Leases: %w", err)
	}
	return nil
}

// NodeReady reports whether node's Ready condition is True.
func NodeReady(node *corev1.Node) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// allOf reports whether every name is true in m.
func allOf(names []string, m map[string]bool) bool {
	for _, n := range names {
		if !m[n] {
			return false
		}
	}
	return true
}
