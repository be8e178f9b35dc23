// Package serve answers the Kubernetes API's read requests from the
// reflectors of a process: an http.Handler that serves, for the resources it
// is given (one reflector.Handle each, of all namespaces or of one, objects
// with their printer cells), the discovery documents kubectl and client-go
// read first (legacy and aggregated), GET of one object, LIST (label and field
// selectors, limit/continue, resourceVersion semantics, Tables) and WATCH
// (resume after a resourceVersion, 410 Gone beyond the window, bookmarks,
// streaming lists ending with the initial-events-end bookmark, selectors,
// Tables). Writes are refused with 405 MethodNotAllowed and anything not
// cached (nor, with OnDemand, cacheable) with 404: the handler never
// proxies objects to or from the API server (its sources read the API
// server, Backfill among them). Only the OpenAPI documents that kubectl reads before a write (to
// validate it, then meet the 405) are fetched from the server, by the
// handler that OpenAPI returns, and the self reviews (may I? what may I?
// who am I?, which k9s asks before it lists a kind) are passed to it by
// the handler that Upstream returns: they create nothing and ask about the
// daemon's identity, the one it serves. WithToken guards it with a bearer token,
// /debug/status (Handler.Status: each resource's objects, resourceVersion,
// open watches, events sent and current subscriber lag) included. Collector
// turns the same into Prometheus metrics, with a histogram of the
// subscriber lag: the time from a live change's arrival in the store
// (store.Change.At) to its watch event's flush to a client (lag.go).
//
// # Why an event window on our store, not k8s.io/apiserver's cacher
//
// kube-apiserver's watch cache (the cacher, which Karmada's search proxy
// embeds) would give these semantics from the server's own code, but it
// wants a storage.Interface, a versioner, typed or unstructured objects
// decoded into runtime.Objects, and brings k8s.io/apiserver and its
// dependencies (etcd client, OpenTelemetry, the storage layer) into a
// kubectl plugin. What it would add we already have: pkg/store keeps one
// copy of each object as the JSON the server sent, hands every change in
// order with its resourceVersion to each subscriber on its own bounded queue
// (store.Ordered), and keeps a window of its latest changes that a watch
// resumes from (store.Options.Window, store.Store.SubscribeFrom, whose
// ErrTooOld is the 410). This package is the thin layer that turns those
// into the API's wire format: objects are written as the bytes the server
// sent (no decoding into Go types, no re-encoding), so a LIST costs a copy
// of the stored bytes (BenchmarkList in bench_test.go: 10,000 ConfigMaps
// of 1 KiB are listed in about 20 ms as objects, 40 to 80 ms as a Table on
// a shared 2-core machine).
//
// # Kinds added on demand
//
// With Options.OnDemand, the handler serves more than the resources it was
// given: its discovery is a copy of the API server's, every resource that
// the server lists and watches (read once at start, again when a client
// asks for a resource the copy lacks, at most once a second, and when a
// client reads /api or /apis over OnDemand.DiscoveryTTL after the last
// read), in the server's order, with the verbs get, list and watch. That
// order is the server's so that a client resolves a short name two kinds
// share (a custom resource's that shadows a built-in one) to the kind the
// server's discovery would give it.
//
// The first request of a resource that is not cached yet starts its
// reflector (OnDemand.Start: all namespaces, as those given) and waits for
// its first list, at most OnDemand.SyncWait (then 504; the reflector goes
// on listing for the next request) and no longer than the request's
// context; requests that come meanwhile wait for the same reflector, so
// that any number of first requests make one LIST and one WATCH at the
// API server. If the reflector stops for good before its first list, the
// API server's answer to it is the requests' answer (403 Forbidden with
// the server's message when the user may not list or watch the resource),
// and nothing is kept: the next request tries again.
// A reflector that stops for good later (the user lost the right to
// watch) is dropped: its watches end, so that their clients ask again and
// hear why. OnDemand.Changed is told each time what is served changes
// (the daemon publishes it); Close stops what was added.
//
// With OnDemand.ReleaseIdle, a resource added so that no request has used
// for that long, with no watch open on it, is dropped as when its
// reflector stops (idle.go); the next request adds it again. The
// resources given are kept, and so are those Handler.Keep adds without a
// request (as a first request would add them; a daemon that records every
// kind keeps what it records served).
//
// A user may be allowed a resource in some namespaces only (a Role in
// each): the API server refuses them its every namespace. A request of one
// namespace that meets that refusal starts a reflector of that namespace
// alone, served as the others (each namespace asked so has its own, kept
// as those of every namespace are; a request of every namespace still
// tries that first, and gets the server's 403). The refusal is remembered
// for a minute (refused.go): a request of one namespace within it asks
// that namespace alone, one LIST at the server as kubectl's request would
// cost. A cache of every namespace, once there is one, answers for all. A
// Resource given may hold one namespace too (Resource.Namespace: serve -n).
// OnDemand.Changed names the resources cached in every namespace; Status
// names each namespace's cache too.
//
// # Consistency (what each resourceVersion is answered with)
//
// The cache is as fresh as its watch. LIST with resourceVersion "" (a
// consistent read at the API server) or "0" is answered with the current
// state; with N (NotOlderThan, the default match for N) the current state
// once the store has reached N, waiting up to three seconds, else 504 with
// the cause ResourceVersionTooLarge, as the API server does; with
// resourceVersionMatch=Exact, N is answered with the state at N whenever
// the daemon can tell it exactly (below) or Options.History holds it (a
// recording daemon's history on disk), else 410 Expired. Every list
// carries the resourceVersion of the snapshot it shows, which a WATCH
// resumes from.
//
// What the daemon can answer exactly: every change after the oldest
// resourceVersion its window holds (store.Store.OldestResourceVersion: the
// first list's, until --history changes push it on), with the version
// before each change. A WATCH from N at or after it is sent the changes
// after N, and an exact LIST at N is the current state with the changes
// after N undone. A resourceVersion from before it (a client that read the
// API server before the daemon started, or moves to it from the API
// server) is read back from the API server's own watch cache
// (Source.Backfill: one WATCH from N, up to the daemon's oldest), so that
// its watch resumes without a relist, event for event as the API server
// would send it, whenever the API server still holds those changes and the
// window has room for them. The API server's events do not say an
// object's version before the first of them that modified it: an exact
// LIST from before such a change, and a WATCH whose label or field
// selector reads the object's content across one (whether it matched
// before decides between MODIFIED and DELETED), are 410, unless
// Options.History holds them (a recording daemon's record on disk, which
// knows every version): an exact LIST is answered with its state at N, a
// WATCH with its changes after N up to the store's oldest, then the
// store's (feed.replay), so that a client that outlived a daemon's
// restart resumes without a relist. Any 410 names in
// parentheses, as the API server's does, the oldest resourceVersion a
// watch may resume from. A paged list (limit) is pinned to its
// first page's snapshot: the continue token names that snapshot, which is
// kept for Options.ContinueTTL after its last use; an expired token is
// answered 410 Expired with a token to continue inconsistently, as the API
// server words it. A kept snapshot holds the object versions it shows, so a
// resource's paged lists hold at most 16 states (usually one: pages of the
// same resourceVersion share it). Objects are listed in the API server's
// order (by namespace/name as one string: etcd's key order).
//
// A WATCH with resourceVersion "" or "0" (or sendInitialEvents=true) starts
// with the current state as ADDED events; with N it replays the changes
// after N from the store's window, or answers an ERROR event 410 Expired
// when neither the window nor the API server reaches back. A watch that
// ends at its timeoutSeconds ends, when it allows bookmarks, with a
// BOOKMARK at the resourceVersion of the moment, as the API server's does
// (two seconds before its deadline; the daemon's at it), so that its
// client resumes without a replay. A watcher that falls too far
// behind (its queue overflowed: store.Resync) has its watch closed, so that
// its client relists; it never slows the others.
//
// When the daemon's reflector relists (the API server answered 410 to its
// watch), the rule is the API server's after its own watch cache relists
// (watchCache.Replace empties the cache's event buffer): a WATCH that
// resumes from before the relist's resourceVersion is answered 410
// Expired, and its client lists again. A watch open meanwhile (which the
// API server would end) is sent what the relist changed, in an order whose
// resourceVersions never go back (store.Subscription: the deletions first,
// at the resourceVersion before the relist, since when each object went is
// unknown; then the new and changed objects in the order of their own
// resourceVersions), then, when it allows bookmarks, a BOOKMARK at the
// relist's resourceVersion: a client that resumes from the bookmark has
// every change, one that resumes from any resourceVersion of the burst
// lists again (it cannot be told which of the changes that share it were
// seen), and none is sent a change twice nor one that did not happen.
//
// Printer cells are those the server sent with each object, but for those
// its printers compute from the time of the request, computed again at each
// answer from the object as they would (timecells.go): every Age, an
// Event's Last Seen and First Seen, a running Job's Duration, a CronJob's
// Last Schedule, a Pod's "Restarts (T ago)", a custom resource's date
// columns whose JSONPaths are simple (Resource.DateColumns; others show
// the age they had when the object last changed). Answers
// about a resource carry the Warning headers of the API server's latest
// answer about it (Warnings: a deprecated version).
//
// # Map of the package
//
//   - handler.go: Handler, Options, Source (a reflector.Handle as read
//     here), History (the record on disk, as read here), Resource; route.go
//     reads a request's path, negotiate.go its Accept header.
//   - discovery.go: the discovery documents (legacy and aggregated).
//   - list.go: GET and LIST; snapshots.go keeps the snapshots paged lists
//     continue through; order.go the API server's order of a list.
//   - watch.go: a WATCH's parameters and the feed it reads (subscription,
//     replay from the History); watchstream.go its loop (events,
//     bookmarks, relists, the closing bookmark); watchwriter.go the events
//     on the wire.
//   - encode.go, rows.go, timecells.go: objects and Tables as the API
//     server writes them; selector.go: label and field selectors.
//   - scope.go: ServedScope, what a reflector served from reads (Tables,
//     whole objects, packed).
//   - ondemand.go: OnDemand, a request's resource found or awaited, the
//     API server's discovery read again; ondemandstart.go: a resource
//     started, followed, kept (Keep) and dropped; idle.go: ReleaseIdle;
//     refused.go: the namespaces a cache of every namespace was refused.
//   - status.go: errors as the API server's Status; warnings.go: the
//     API server's Warning headers passed on.
//   - auth.go: WithToken; openapi.go: OpenAPI; upstream.go: Upstream (the
//     self reviews).
//   - debugstatus.go: Handler.Status and /debug/status; metrics.go:
//     Collector; lag.go: the subscriber lag.
//
// The package knows HTTP and the API's wire format; it knows nothing about
// flags, kubeconfigs, TLS or how the reflectors are started. It does not
// write to the API server, nor read the record on disk but through
// Options.History.
package serve
