// Package statusview prints what `kubectl reflect serve status` shows of a
// running daemon. It exists, as internal/recordview and
// internal/timelineview do, so that internal/cmd keeps to wiring and the
// daemon's status is printed in one place, apart from the daemon that
// answers it.
//
//   - status.go: Print, the daemon's pid, address, start and kubeconfig,
//     what it records and what the API server refused it, a table of its
//     resources (objects, resourceVersion, watchers, events sent, lag, and
//     RECORDED when it records), its controllers when it runs any, and the
//     record's own status (where it begins, its size, bytes an hour per
//     kind), which pkg/history/recording prints.
//
// It asks the daemon nothing: its caller hands it daemon.Status and
// daemon.Info.
package statusview
