// Package reflector runs the reflectors of a process: a Reflector is one
// resource's watcher (pkg/watch, through a Client such as pkg/kube's) writing
// one store (pkg/store), with the server's printer columns beside it; a Set
// shares them, so that every consumer in a process that asks for "resource R
// in scope S" (the printers of `watch` and `get`, a controller's inputs, a
// daemon's endpoints) reads the same running watcher and store.
//
// A Set starts a reflector on the first Acquire of its resource and scope
// and stops it when the last Handle is released. A scope that covers another
// (all namespaces covers one) is reused rather than opening a
// second watch; its Handle then reads and subscribes to the narrower scope
// only. WaitForSync waits for the first list of several handles at once. A
// Set whose SetOptions.Window is set keeps that many latest changes in
// each store, so that a handle may resume after a resourceVersion
// (Handle.SubscribeFrom: a WATCH endpoint's resume, or its 410).
// SetOptions.Scope rewrites every Acquire's scope first, so that consumers
// that ask for less (a controller) share the reflectors of one that asks
// for more (a daemon's Tables). Set.Expect lets consumers built before any
// of them runs (a process's controllers) share a reflector that prunes only
// what all of them prune. Subscriptions come from the store, in either of its modes: Coalescing for
// level-based controllers, Ordered for printed streams and the daemon.
//
// Map of the package:
//   - reflector.go: Reflector (NewWithStore, Run), the Client it reads
//     through and the Hooks it reports to.
//   - set.go: Set, SetOptions, Acquire, Expect and the covering rule;
//     RESTClients, the Clients of a real server; DefaultWatchOptions.
//   - handle.go: Handle, a consumer's reads and subscriptions, narrowed to
//     its namespace; WaitForSync.
//   - seed.go: starting a reflector from a recorded state (Seeder,
//     Recorded, Restorer) instead of a list.
//   - backfill.go: Reflector.Backfill, changes read again from the server
//     into the store's window.
//
// The data flows one way: watch -> store -> consumers. A Handle reads and
// subscribes; only the reflector writes. What a reflector's retries,
// relists and list progress mean to a user is the consumer's business: the
// package reports them through Hooks (errors, relists, list progress, live
// events, watch restarts) and knows nothing about terminals,
// flags, printing or controllers.
package reflector
