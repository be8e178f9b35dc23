// Package controlplane runs a real, local Kubernetes control plane for
// end-to-end tests and demos: etcd, kube-apiserver and (optionally)
// kube-controller-manager as child processes on free loopback ports, with no
// kubelet, scheduler or container runtime.
//
// What it owns:
//   - Building the binaries (Build): from the pinned module in ./tools, once
//     per version, into a cache directory outside the repository.
//   - The processes and their temporary directory (Start, Stop): etcd data,
//     certificates, a service-account key pair, a token file, kubeconfigs and
//     one log file per component.
//   - Outages and history loss on demand: StopAPIServer, StartAPIServer and
//     RestartAPIServer (same port, same etcd) and CompactEtcd, which together
//     make a watch from an old resourceVersion fail with 410 Gone.
//   - Test helpers: StartForTest (one control plane per test) and Shared (one
//     per test binary).
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
