// Package history tests `serve --record`, `get --at`, `history` and
// `watch --since` against a real control plane (one for the package,
// shared by its tests) and, for a history in PostgreSQL, Debian's server
// (test/postgres, started by the first test that asks): what a daemon
// records, what get printed at a moment compared byte for byte with get
// --at that moment later, revisions and their managers, a daemon
// restarted (SIGTERM, SIGKILL in a burst, after etcd compacted) that
// resumes from its history and records what it missed, a client's watch
// resumed from the history after a restart, and the one-line errors of
// bad input and bad files.
package history
