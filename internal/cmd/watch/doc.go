// Package watch is `kubectl reflect watch` (and what `get -w` runs): its
// flags and Options, a reflector per kind and namespace from cli.Target,
// their subscriptions flattened into one printed stream by pkg/flatten,
// a name not found yet told once (waiting.go), and the exit status of a
// --timeout that ended before some kind listed (timeout.go).
package watch
