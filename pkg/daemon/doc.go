// Package daemon is `kubectl reflect serve`'s daemon, both sides of it: the
// process (Run) and how its clients find it and ask it (how they fall over
// from it is pkg/daemon/failover's).
//
// # The process
//
// Run(ctx, Config) is the daemon's whole life (server.go): it takes the
// lock of its identity, starts a reflector per kind given on one
// reflector.Set (of every namespace, or of Config.Namespace) with hooks
// that count (metrics.go: kubectl_reflect_serve_*), the built-in
// controllers on the same Set (controllers.go, through pkg/manager: one
// watch per kind for both), reads the API server's discovery and waits for
// the first lists; then it serves pkg/serve's handler over them (listen.go)
// at 127.0.0.1 with a self-signed certificate and a random token
// (credentials.go), and at its unix socket, behind /metrics,
// /debug/controllers and /readyz, writes its kubeconfig and Info, adds
// kinds on demand and keeps its Info true as they come and go
// (ondemand.go, discovery.go: what a custom resource's definition adds:
// selectable fields, date columns), and exits after --idle-exit without a
// request (idle.go). With Config.Record it assembles the recording
// (pkg/history/recording, which owns it: the recorders, the warm restart,
// the answers for what its stores no longer hold, /debug/history, every
// kind with recording.Config.AllKinds) on its Set and its handler.
//
// # Finding it
//
// There is one daemon per identity (Identity: a hash of the kubeconfig's
// server URL, in one spelling for all those of one server, and CA and of
// its user's credentials: token, client
// certificate, exec or auth-provider configuration; never a secret in
// clear), whose files live in Dir (0700, under $XDG_RUNTIME_DIR or the
// user's cache directory), named by that hash:
//
//   - <identity>.lock, held with flock by the running daemon (Acquire):
//     a second daemon of the identity is refused with an error naming the
//     first (ErrRunning); the kernel frees the lock when a daemon dies, so
//     the files of a killed daemon are found stale and replaced;
//   - <identity>.kubeconfig (0600), the daemon's own server, CA and token;
//   - <identity>.json (0600), its Info: pid, address, resources, start;
//     written again as the daemon adds resources on demand (Lock.PublishInfo).
//   - <identity>.sock (0600), a unix socket the daemon also serves at
//     (Lock.ListenSocket), the same TLS server and token; a client reaches
//     the daemon there when it answers (Find), else at its address. A
//     socket left by a dead daemon is replaced by the next.
//
// A daemon serves only the identity it runs as (the files of another
// identity have another name), and a client only uses the daemon of its
// own identity, after it answered /readyz over its TLS (Find).
//
// How get and watch read through the daemon, and fall over to the API
// server when it goes away, is pkg/daemon/failover's (which imports this
// package; this package does not import it).
//
// Running, ReadStatus and Stop are `serve status` and `serve stop`'s
// client (control.go): whether the daemon of some files runs, what it
// reports at /debug/status, /debug/controllers and /debug/history, and a stop (SIGTERM on
// Unix; on Windows, where no signal asks a process to stop, it is
// terminated and its files are found stale) that waits for its lock to be
// freed. How `serve status` prints the Status is internal/cmd/serve's.
// HistoryOf locates the record a verb reads (recording.Locate): the
// running daemon's, else the identity's default file.
//
// # Several contexts
//
// RunContexts (contexts.go) is `serve --context a,b`: a daemon per
// context (contexts of one cluster and user share one), then the merged
// view of them all (pkg/merge's handler) behind its own certificate and
// token, with a kubeconfig that has a context per member and
// MergedContext.
//
// It knows files, TLS and HTTP; how the
// API is answered is pkg/serve's, how controllers run pkg/manager's, how
// several clusters merge pkg/merge's, how changes are recorded
// pkg/history/recording's, and it knows nothing about flags or how
// `serve status` is printed. It prints its own lines to Config.ErrOut
// (where it serves, warnings), nothing else.
package daemon
