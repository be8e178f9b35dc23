// Package blame tells who set each value of a recorded object, and when:
// `kubectl reflect blame`. It reads an object's revisions as the history
// (pkg/history) returns them, oldest first, and nothing else: not the
// store, the API server or a terminal.
//
//   - blame.go: Blame, the object's YAML (kubectl's, without
//     managedFields) at its last revision, each line with the Change that
//     last set its value, as git blame annotates a file's lines.
//   - tree.go: the origin of each value, a tree built from the first
//     revision of the object's life and updated by each one after it
//     (what did not change keeps its origin; a list of named maps, such
//     as containers, is followed by name).
//   - change.go: Change, what blame says of a revision: the history's
//     Manager (who made it) and the operation and subresource of the
//     managedFields entry it wrote (so a manager that no longer owns a
//     field still gets the blame for the revision where it set it);
//     Initial when the value was there when recording began.
//   - log.go: Log, one field's values through time, newest first
//     (blame --field), removals and deletions included.
//   - field.go: ParseField, the field --field follows: object.ParsePath's
//     (the one parser of field paths; blame has none of its own) less
//     [*], which names more than one field.
//
// Blame and Log read only the revisions given: the cost of one object's
// blame is that of its revisions, whatever else the record holds
// (BenchmarkBlame).
package blame
