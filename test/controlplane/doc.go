// Package controlplane runs a real, local Kubernetes control plane for
// end-to-end tests and demos: etcd, kube-apiserver and (optionally)
// kube-controller-manager as child processes on free loopback ports, with no
// kubelet or container runtime; and, when a test asks for them
// (Options.Scheduler, Options.Kwok), kube-scheduler and kwok, whose fake
// nodes make a cluster's shape: nodes with Leases, pods scheduled and
// Running.
//
// What it owns:
//   - Building the binaries (Build): etcd, kube-apiserver,
//     kube-controller-manager, kubectl and kube-scheduler from the pinned
//     module in ./tools, kwok from ./kwoktools; once per version, into cache
//     directories outside the repository, a set each, so that a test that
//     does not ask for kube-scheduler or kwok never waits for them.
//   - The processes and their temporary directory (Start, Stop): etcd data,
//     certificates, a service-account key pair, a token file, kubeconfigs and
//     one log file per component.
//   - Outages and history loss on demand: StopAPIServer, StartAPIServer and
//     RestartAPIServer (same port, same etcd) and CompactEtcd, which together
//     make a watch from an old resourceVersion fail with 410 Gone.
//   - Test helpers: StartForTest (one control plane per test) and Shared (one
//     per test binary).
//   - A cluster's shape and churn: fake nodes (AddNodes), Deployments of
//     pods Running on them (MakeShape), and rollouts, scales and deletions
//     with waits for the cluster to catch up (Deployments).
//
// It must not know about kubectl-reflect itself: the tests of other packages
// use it only through a rest.Config or a kubeconfig path.
//
// # Cluster shape
//
// Authentication is by static bearer token: the admin ("admin", in
// system:masters) and an unprivileged user ("unprivileged", no groups) for
// RBAC tests. Authorization is RBAC. The serving certificate comes from a CA
// generated per control plane and embedded in the kubeconfigs. The
// ServiceAccount admission plugin is disabled because no controller creates
// service accounts, so pods can be created (they stay Pending: there is no
// node). kube-controller-manager runs the garbagecollector and namespace
// controllers by default; they act asynchronously, so tests poll.
//
// # A cluster with nodes
//
// Options{Scheduler: true, Kwok: &KwokOptions{Nodes: N}} adds kube-scheduler
// (its configuration file names the admin's kubeconfig; no leader election)
// and kwok (sigs.k8s.io/kwok), which plays the kubelet of every node
// annotated kwok.x-k8s.io/node=fake. The harness creates N such nodes as
// kwokctl's node template does (labels, a pod CIDR and an internal IP each,
// 32 CPUs, 256Gi, 110 pods, no taint). kwok acts by the Stages of its
// kustomize/stage/fast, copied from the module it was built from: a node is
// Ready at once and its Lease in kube-node-lease renewed every quarter of
// KwokOptions.NodeLeaseDuration (40s, the kubelet's default), its status
// every 10 to 20 minutes; a pod bound to it is Running and Ready with an IP of
// the node's pod CIDR, and deleted for good once deleted. No container runs.
// kube-controller-manager then runs ClusterControllers: Deployments and
// ReplicaSets, node lifecycle and taint eviction, and pod garbage collection,
// besides the default two.
//
// Start starts them once kube-apiserver is ready, creates the nodes and
// returns once kube-scheduler's /readyz answers and, watching, each node is
// Ready and has its Lease. MakeShape then creates Deployments, and
// Deployments drives them, waiting for rollouts and deletions by watching
// too:
//
//	cp := controlplane.StartForTest(t, controlplane.Options{Scheduler: true, Kwok: &controlplane.KwokOptions{Nodes: 10}})
//	apps, names, err := cp.MakeShape(ctx, controlplane.Shape{Namespace: "shop", Deployments: 5, Replicas: 4})
//	...
//	apps.Rollout(ctx, names[0]) // a new ReplicaSet; then apps.AwaitComplete(ctx, names[0])
//	apps.Scale(ctx, names[1], 8)
//	apps.Delete(ctx, names[2]) // then apps.AwaitGone(ctx, names[2])
//
// A test without these options starts what it always did.
//
// During an outage (StopAPIServer) kube-scheduler and kwok keep running and
// reconnect afterwards; Leases not renewed for longer than
// kube-controller-manager's node-monitor grace period (50s) may get nodes
// marked NotReady, as in a real cluster.
//
// # Processes
//
// Every component runs in its own process group and, on Linux, with
// Pdeathsig=SIGKILL, so it dies with the test binary even when Stop is never
// called (a test timeout, a panic, kill -9). Linux delivers Pdeathsig when the
// OS thread that forked the child exits, not the process, so all children are
// started from one goroutine locked to its OS thread for the control plane's
// whole life (see spawner). Stop sends SIGTERM to each process group, then
// SIGKILL after Options.StopGracePeriod, and waits for every process.
//
// # Watch cache and 410 Gone
//
// kube-apiserver runs with its watch cache (the default), which serves watches
// from memory: after CompactEtcd alone, a watch from a resourceVersion still
// inside the cache's window keeps working. Restarting kube-apiserver empties
// the cache, and CompactEtcd makes etcd forget the history too (so reads at an
// exact old resourceVersion, and watches with --watch-cache=false, fail as
// well). After CompactEtcd followed by RestartAPIServer, a watch from a
// resourceVersion older than the restart gets 410 Gone (reason Expired), as
// the watch's first ERROR event or as the response; a client must relist,
// which is what the tests of the watcher rely on.
//
// Note that after a restart even the resourceVersion of the last object a
// client wrote may be older than the new cache: watch from a fresh list's
// resourceVersion.
package controlplane
