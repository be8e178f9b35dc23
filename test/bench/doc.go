// Command bench measures kubectl-reflect side by side with kubectl, its
// baseline, in one run on a real local control plane (see test/controlplane),
// and prints the ratios as a Markdown table:
//
//   - time to the last initial event of `watch cm -o json` (in each list mode:
//     one LIST, streaming list, paged LIST) against `kubectl get cm -o json
//     --chunk-size=0`, and `-o name` against `kubectl get cm -o name
//     --chunk-size=0` for reference. kubectl's headline baseline is always
//     unthrottled: one LIST (`--chunk-size=0`), since kubectl 1.37 has no
//     flag, kubeconfig field or variable that lifts client-go's client-side
//     rate limit (cli-runtime lifts it for discovery only); its throttled
//     default (pages of 500, 5 requests a second after ten) is a second row
//     labelled so, here, in `get` and in `serve`;
//   - CPU time per live event of `watch --watch-only -o json
//     --show-managed-fields` (the fields kubectl's events print) and of the
//     default (managedFields pruned) against `kubectl get -w --watch-only
//     --output-watch-events -o json`, with the bytes each prints per event;
//   - peak RSS after the initial list against `kubectl get cm -o json`;
//   - wall time of a cold `get cm -A` to its exit against `kubectl get cm -A
//     --chunk-size=0` (and its default), and `get -o json` against `kubectl
//     get -o json --chunk-size=0` for reference;
//   - in the benchmark's own process, the time to sync and the heap per
//     object of kubectl-reflect's store (pkg/watch into pkg/store) against
//     client-go's typed informer (as it is, and with managedFields stripped;
//     over protobuf and over JSON, with its streaming list on and off, each
//     informer's requests counted to prove the path: informer_typed.go)
//     and its dynamic informer; and the same for a custom resource holding
//     the same data (Widgets, see crd.go) against the dynamic informer, the
//     only informer client-go has for CRDs;
//   - the peak heap while a synced store takes a relist, against its steady
//     heap;
//   - `run-controller configmap-generator -A` against the same controller
//     written with controller-runtime (test/bench/crcmg, a module of its own
//     the benchmark builds), configured as its docs advise for the job
//     (-advised: the owned ConfigMaps cached as metadata only, managedFields
//     stripped; the headline) and at its defaults (reference rows): time from 1,000 ConfigMapGenerators created to
//     all their ConfigMaps existing, the CPU and peak RSS for it, and the
//     latency of one spec change to its ConfigMap (p50, p99 of 200);
//   - `kubectl reflect serve cm`, started once and waited for until it
//     prints its kubeconfig (synced, listening), in a runtime directory
//     (XDG_RUNTIME_DIR) of the part's own: the wall time of
//     `kubectl-reflect get cm -A`, which finds it, and of plain
//     `kubectl get cm -A` with its kubeconfig, against `kubectl get cm -A
//     --chunk-size=0` (and its default) at the API server (the API
//     server's LIST count shows whether the get read the daemon); then,
//     taking turns, fan-out rounds of ten watchers, five `kubectl-reflect
//     watch cm -A` and five `kubectl get cm -A -w` through a daemon started
//     for the round, against, no daemon running, ten `kubectl get cm -A -w`
//     at the API server: the WATCHes of ConfigMaps they add at the API
//     server (its own apiserver_longrunning_requests gauge from /metrics,
//     read once every watcher printed a change), the event lag while
//     ConfigMaps (-events, at most ten seconds' worth and all but the
//     sentinel) are patched once each, paced at 200 a second (a rate both
//     sides reach; the rate reached is printed), and the VmRSS and VmHWM
//     summed over the daemon and its clients or the plain watchers. A
//     watcher's lag of an update is from the send of its patch call (the
//     write included, as a timestamp written into the update would
//     measure) to the watcher's table row naming that ConfigMap reaching
//     the benchmark, never clamped. Only that ConfigMap's row can name it:
//     each update of a round is to another one;
//   - the history part (measure_history.go, measure_warm.go,
//     measure_blame.go, measure_timeline.go): CPU per event of `serve cm
//     --record` against `serve cm`, `get --at`, `blame`, bytes per
//     revision, and a warm restart of `serve cm --record` against a daemon
//     that lists, ConfigMaps changed while no daemon ran, each timed from
//     its start to serving the API server's state; `blame` of one
//     Deployment in records of 10,000 and 1,000,000 revisions
//     (pkg/blame/blametest), and `timeline` of 24 h of a 3,000-pod cluster
//     (pkg/timeline/timelinetest);
//   - the realistic part (measure_realistic*.go, report_realistic.go), on a
//     control plane of its own with kube-scheduler and kwok (-realistic-nodes
//     100, -realistic-pods 3,000 in -realistic-deployments 60;
//     -realistic-small for 10 nodes and 300 pods): `serve
//     pods,nodes,leases,events,deployments,replicasets --record` and one
//     `kubectl get KIND -A -w -o json` per kind side by side over a window
//     of rollouts, scales and deletions (-realistic-window,
//     -realistic-every): the record's bytes per hour per kind, extrapolated
//     from the window, peak RSS and CPU per watch event against kubectl's
//     summed (one round), and the idle record's growth after it
//     (-realistic-idle) scaled to 100 nodes;
//   - the scale part, last: the store and the typed informer in the
//     benchmark's process at growing numbers of ConfigMaps (-scale-sizes:
//     2,000, 20,000, 100,000): sync time, heap and resident set at each
//     size, and the cost per object from one size to the next, flagged
//     non-linear when a step costs more than 1.10x the one before.
//
// Every ratio is paired (paired.go): the two sides of a row run in the same
// rounds, taking turns (every other round in reverse order), at least 5
// rounds (-repeat; -publish refuses fewer), and the ratio is the median of
// the rounds' own ratios, printed with the smallest and largest; a target
// is judged on that median alone, and a row whose rounds fell on both
// sides of its target says "within noise". Only ratios of figures that are
// not rounds (the scale part's slopes) are a plain quotient.
//
// It measures; it checks nothing (the tests do that). Each part returns a
// partReport whose sections (report.go) are its tables: each row is our
// figure, a baseline's from the same run, the ratio, the target of issue 11
// (or 9) and whether it is met, and what limits us (limits.go, kept by
// hand). The report goes to stdout and, with -publish, to a file:
// `make bench` writes BENCHMARKS.md whole at the repository root, with the
// commit (a binary built from another, or a tree that differs from it,
// fails a -publish run), the machine, the versions, the load average and
// the command that reproduces it; no figure is merged in by hand.
// BENCHFLAGS=-quick is a smoke run; -only runs some of the parts (get,
// watch, controller, serve, memory, relist, scale, history, realistic): both say so on
// the report and are never published (-out writes them); -controllerprofile has
// run-controller write a CPU profile of each round. Run it from the
// repository root after `make build`. It needs Linux: it reads /proc.
package main
