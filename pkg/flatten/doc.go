// Package flatten makes the one stream `watch` prints out of several
// kinds' stores: each kind's subscription (pkg/store, Ordered), its
// exact changes (a store.Tracker: what a relist found changed, deletions
// included, never a duplicate), flattened into output.Events of APPLIED
// and DELETED in the order the kinds were given.
//
// It sits between pkg/store, which knows nothing of printing, and
// pkg/output, which knows nothing of stores; the CLI only wires it. A
// kind's initial state (its first list) prints at once when listed, but
// only after the kinds before it have printed theirs or ended for good
// (Stream.End): the changes of a later kind wait in its subscription,
// in order, and nothing is lost. A replay (watch --since, Stream.Replay)
// is held whole instead: the states in the order given, then every
// kind's replayed changes merged in resourceVersion order (replay.go).
// One goroutine prints (Stream.Print), woken through one channel every
// subscription shares (Stream.Wake), so a slow terminal slows the
// printer, never a store's writer.
package flatten
