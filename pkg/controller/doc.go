// Package controller runs level-based controllers on the shared stores of a
// process (pkg/reflector's Set): a root kind, the kinds it owns and the kinds
// it watches, each read through one running reflector shared with every other
// consumer of the process (other controllers, the printers of watch and get,
// the daemon), so two controllers that read ConfigMaps open one WATCH.
//
// Map of the package:
//   - types.go: Request, Result, Reconciler, Mapper, Trigger: the contract
//     between the runner and a reconciler (Options, how it runs, are in
//     builder.go).
//   - input.go: Input, a controller's read-only view of one shared store
//     (For, Owns or Watches): Get, List, InNamespace (from the store's
//     namespace index), and Decode into a typed object.
//   - builder.go: Builder (For, Owns, Watches, Build). Every input's store
//     keeps its objects packed (kube.Shape.Pack): it lives as long as the
//     controller, and most of what it holds is never read. Inputs tell the
//     Set what they expect (reflector.Set.Expect), so that controllers
//     that prune a kind differently still share one watch of it.
//   - controller.go: Controller: Run (leases, subscriptions, workers that
//     start once every input has synced, graceful and forced stop), Ready,
//     ReconcileAll.
//   - mapping.go: how an Input's object maps to root requests (itself, its
//     controller ownerReference, the Mapper).
//   - scheduler.go: which request runs when: dedupe, debounce, requeue,
//     per-object backoff, live changes before the initial backlog, never
//     one object twice at once. Pure logic over time, no API.
//   - reconcile.go: one reconcile: its logger, reconcile ID, trigger,
//     panic recovery, metrics and record.
//   - metrics.go, inflight.go: Metrics, under controller-runtime's names,
//     labels and help texts (NewMetrics).
//   - health.go: /metrics, /healthz and /readyz (NewHealthHandler), and a
//     server for them (ListenHealth, HealthServer.Run).
//   - leader.go: RunWithLeaderElection on a coordination.k8s.io Lease
//     (client-go's leaderelection), released only after run returned.
//   - events.go: NewRecorder, events.k8s.io/v1 Events through client-go's
//     events broadcaster.
//   - tracing.go: one OpenTelemetry span per reconcile, NewTracerProvider
//     (OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set, else no-op) and
//     WrapConfigForTracing (API calls as child spans).
//
// internal/reflectortest is an in-memory server for the tests and examples
// of this package and of the built-in controllers.
//
// The data flows one way: store -> subscriptions (Coalescing: latest wins per
// object) -> requests -> the scheduler -> reconcile. A reconcile reads the
// current state from its Inputs, never from the change that triggered it
// ("you should not branch on event type"), and writes with server-side apply
// under one field manager per controller. Deletions are triggers like any
// other change; what must happen before an object goes uses a finalizer.
//
// The package knows nothing about terminals, flags or which controllers
// exist: pkg/builtin holds the built-in ones, internal/cmd the command
// that runs them.
package controller
