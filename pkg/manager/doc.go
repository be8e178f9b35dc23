// Package manager runs built-in controllers as one, the way
// controller-runtime's manager does: `kubectl reflect run-controller` and
// `serve --controllers` both build their controllers here, so that a
// controller behaves the same in a terminal and inside the daemon.
//
// The contract:
//   - New builds every controller of Config.Builtins on Config.Set (the
//     process's reflectors: one watch per kind whatever the number of
//     controllers and other consumers), with clients tuned for writes
//     (ClientConfig: no client-side rate limit, HTTP/1.1, protobuf), their
//     metrics under controller-runtime's names in Config.Registry, an
//     OpenTelemetry span per reconcile, an Events recorder per built-in (none
//     on a dry run) and, when Config.Log is set, a line per reconcile on it
//     (log.go). Nothing runs yet.
//   - Run runs them until its context ends (gracefully: reconciles in flight
//     finish) or one fails (the others stop); with Config.LeaderElection only
//     while this process holds the Lease; with Config.HealthAddr serving
//     /metrics, /healthz and /readyz meanwhile.
//   - Force stops the reconciles in flight after Run's context ended;
//     HandleSignals is the process's stop policy built on it: the first
//     SIGINT or SIGTERM stops gracefully, a second forces (ErrInterrupted),
//     SIGHUP reconciles every object again (ReconcileAll).
//   - Status and Handler report the controllers (ready, reconciles) for the
//     daemon's /debug/controllers and /readyz.
//   - Close, once Run returned, flushes what the run leaves: Events, spans,
//     the log.
//
// Files: manager.go (Config, New, Close), clients.go (the clients the
// controllers write with), run.go (Run, leader election, health server),
// signals.go (HandleSignals), log.go (the line per reconcile), status.go
// (Status, Handler).
//
// It knows controllers, clients and signals; it knows nothing about flags,
// the daemon's API or which built-ins exist (pkg/builtin).
package manager
