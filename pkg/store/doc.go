// Package store is the reflector's memory: one Store per resource, fed by
// exactly one writer (a watcher's event stream, through Apply) and read by
// any number of readers and subscribers at once.
//
// A relist (Init .. InitDone) is buffered and swapped in one step, so readers
// never see half a relist. Objects that a relist finds unchanged (same
// resourceVersion) are kept as they are, so a relist costs memory only for
// what changed. After the swap the store tells its subscribers what really
// changed: Applied for new and changed objects, Deleted for objects that
// vanished while the watcher was away.
//
// Subscriptions never slow the writer or each other: each has its own
// queue, in one of two modes. Coalescing (the default, for level-based
// controllers) keeps one pending change per object (latest wins, the
// previous version kept is the one the subscriber last saw). Ordered (for
// event streams such as `watch` and a WATCH endpoint) keeps every change in
// the order the store applied it, each with the version just before it.
// Every change carries the store's resourceVersion at that change. A queue
// that grows past its bound (one full state plus Options.QueueLimit or
// SubscribeOptions.Limit changes, or the mode's default) is replaced by a
// resync of the current state (see Subscription for the exact policy).
//
// A store that keeps a window (Options.Window: its latest changes) lets a
// subscriber resume after a resourceVersion (SubscribeFrom): it is given the
// changes after it, then the live ones, or ErrTooOld when the window no
// longer reaches back that far (a WATCH endpoint's 410). A relist empties
// the window, as the API server's watch cache does: a resume from before
// it is ErrTooOld, one from its resourceVersion replays what came after.
//
// A Tracker turns one subscription's changes into exact Applied and Deleted
// changes across a Resync (what a printed stream shows). SubscribeOptions.Keep
// narrows a subscription to some keys (one namespace of a store that holds
// all of them).
//
// Readers query snapshots: Get, Snapshot (the items and the resourceVersion
// they are current to, read at once), List (sorted, filtered by any predicate, such
// as object.MatchLabels) and ByIndex (any index given by Options.Indexes,
// and NamespaceIndex, built on its first use so that a store nobody asks by
// namespace does not hold it).
//
// Map of the package:
//   - store.go: Store, Options, New and Apply, the one writer: a relist
//     buffered and swapped, its differences told as changes.
//   - read.go: the readers: Get, List, Snapshot, ByIndex, Len,
//     ResourceVersion, Synced, WaitForSync.
//   - change.go: Key, Object, Change and ChangeType, what subscribers get.
//   - subscription.go: Subscription, Mode, SubscribeOptions, Subscribe: the
//     queue policy and its bound; queue.go: the two queues behind it.
//   - window.go: the window of latest changes (Options.Window),
//     SubscribeFrom, ErrTooOld and TooOldError.
//   - backfill.go: Backfill (the window extended back with older changes
//     a server replayed) and StateAt (the state at a resourceVersion
//     inside the window).
//   - tracker.go: Tracker.
//   - index.go: indexes (IndexFunc, NamespaceIndex).
//   - order.go, rv.go: key order (CompareKeys) and resourceVersions
//     (ParseRV, CompareRV, MaxRV).
//
// The package knows watch events and objects with a namespace, a name and a
// resourceVersion; it knows nothing about HTTP, terminals or controllers.
package store
