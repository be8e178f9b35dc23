// Command bench measures kubectl-reflect side by side with kubectl, its
// baseline, in one run on a real local control plane (see test/controlplane),
// and prints the ratios as a Markdown table:
//
//   - time to the last initial event of `watch cm -o json` (in each list mode:
//     one LIST, streaming list, paged LIST) against `kubectl get cm -o json`,
//     and `-o name` against
//     `kubectl get cm -o name` for reference;
//   - CPU time per live event of `watch --watch-only -o json` against
//     `kubectl get -w --watch-only --output-watch-events -o json`;
//   - peak RSS after the initial list against `kubectl get cm -o json`;
//   - wall time of a cold `get cm -A` to its exit against `kubectl get cm -A`,
//     and `get -o json` against `kubectl get -o json` for reference;
//   - in the benchmark's own process, the time to sync and the heap per
//     object of kubectl-reflect's store (pkg/watch into pkg/store) against
//     client-go's typed informer (as it is, and with managedFields stripped)
//     and its dynamic informer; and the same for a custom resource holding
//     the same data (Widgets, see crd.go) against the dynamic informer, the
//     only informer client-go has for CRDs;
//   - the peak heap while a synced store takes a relist, against its steady
//     heap;
//   - `run-controller configmap-generator -A` against the same controller
//     written with controller-runtime (test/bench/crcmg, a module of its own
//     the benchmark builds): time from 1,000 ConfigMapGenerators created to
//     all their ConfigMaps existing, the CPU and peak RSS for it, and the
//     latency of one spec change to its ConfigMap (p50, p99 of 200);
//   - `kubectl reflect serve cm`, started once and waited for until it
//     prints its kubeconfig (synced, listening), in a runtime directory
//     (XDG_RUNTIME_DIR) of the part's own: the wall time of
//     `kubectl-reflect get cm -A`, which finds it, and of plain
//     `kubectl get cm -A` with its kubeconfig, against `kubectl get cm -A`
//     at the API server (the API server's LIST count shows whether the get
//     read the daemon); then fan-out rounds of ten watchers, five
//     `kubectl-reflect watch cm -A` and five `kubectl get cm -A -w` through
//     the daemon, against, the daemon stopped, ten `kubectl get cm -A -w` at
//     the API server: the WATCHes of ConfigMaps they add at the API server
//     (its own apiserver_longrunning_requests gauge from /metrics, read once
//     every watcher printed a change), the event lag while -events
//     ConfigMaps (at most all but the sentinel) are patched once each, paced
//     at 1,000 a second, and the VmRSS and VmHWM summed over the daemon and
//     its clients or the plain watchers. A watcher's lag of an update is
//     from the return of its patch call (the API server committed it) to
//     the watcher's table row naming that ConfigMap reaching the benchmark
//     (0 when it came first); from the call's start, the write included,
//     is reported as an upper bound (a timestamp written into the update
//     would measure that). Only that ConfigMap's row can name it: each
//     update of a round is to another one.
//
// It measures; it checks nothing (the tests do that). Run it with
// `make bench` (BENCHFLAGS=-quick for a smoke run) or `go run ./test/bench`
// from the repository root after `make build`; -only runs some of the parts
// (memory, relist, get, watch, controller, serve); -controllerprofile has
// run-controller write a CPU profile of each round. It needs Linux: it
// reads /proc.
package main
