// Package blame is `kubectl reflect blame KIND/NAME`: who set each value
// of a recorded object, and when (pkg/blame), read from the history that
// `serve --record` wrote (pkg/history). blame.go holds the command and
// its flags; internal/recordview prints the annotated YAML or a field's
// log (--field), as text or JSON (-o json).
package blame
