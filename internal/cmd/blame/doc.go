// Package blame is `kubectl reflect blame KIND/NAME`: who set each value
// of a recorded object, and when (pkg/blame), read from the history that
// `serve --record` wrote (pkg/history). blame.go holds the command and
// its flags, print.go what it prints: the annotated YAML, a field's log
// (--field); json.go either as JSON (-o json).
package blame
