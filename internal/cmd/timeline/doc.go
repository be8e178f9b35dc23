// Package timeline is `kubectl reflect timeline`: the recorded history
// (serve --record) drawn as lanes of marks through time, read by
// pkg/timeline.
//
//   - timeline.go: the command, its flags, Complete, Validate and Run.
//   - open.go: each context's history opened, the kinds resolved (those
//     given, else every recorded one but Events).
//   - plain.go: the plain text printed when piped.
//   - tui*.go: the interactive view in a terminal.
package timeline
