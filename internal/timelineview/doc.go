// Package timelineview draws a timeline (pkg/timeline) for a person: as
// plain text when piped, or as an interactive view in a terminal
// (bubbletea). It exists so that the timeline verb keeps to wiring, and
// so that the text and the terminal share one drawing of an axis, a lane
// and a group's title.
//
//   - plain.go: Plain, the text: a header, the time axis, the density
//     row, a row of mark glyphs per lane under its group's title, the
//     legend and the Warning Events.
//   - tui.go: Run and NewModel, the interactive view's state and keys.
//   - tuiview.go: what the interactive view draws.
//   - tuidetail.go: what Enter shows of a mark (Details): the revision's
//     diff, as history --diff prints it (internal/recordview), and the
//     object then, as get --at prints it.
//
// It reads no history itself but the revisions Enter asks for, and
// resolves no kind: the verb opens the histories and builds the timeline.
package timelineview
