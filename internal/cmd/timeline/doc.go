// Package timeline is `kubectl reflect timeline`: the recorded history
// (serve --record) drawn as lanes of marks through time, read by
// pkg/timeline and drawn by internal/timelineview.
//
//   - timeline.go: the command, its flags, Complete, Validate and Run.
//   - open.go: each context's history opened (internal/contexts with
//     several), the kinds resolved (those given, else every recorded one
//     but Events).
//   - html.go: --html FILE, the page pkg/timeline/htmlpage writes.
package timeline
