// Package history is `kubectl reflect history KIND/NAME`: every revision of
// one object that `serve --record` wrote to its history (pkg/history), as
// a table (resourceVersion, time, operation, manager), as diffs, or one
// revision's object, printed by internal/recordview. It reads the history
// file alone: the daemon that wrote it need not run, nor the API server
// answer once the kind is resolved.
//
//   - history.go: the command, its flags, one context's run.
//   - contexts.go: --context a,b (--all-contexts): each context's
//     revisions read at once (internal/contexts), printed as one table
//     with a CONTEXT column, a failed context one line on stderr.
package history
