// Package moment is a point of the record (pkg/history) that a flag names:
// get --at, diff --at, blame --at, watch --since. It exists so that every
// verb that reads the past reads the same words the same way, and says the
// same of what the record cannot date exactly.
//
//   - moment.go: Parse, a flag's value (a resourceVersion, a duration ago,
//     a time) as a Moment; In, the resourceVersion and time it names in a
//     history; For, what the history knows of a kind then; Uncertain, the
//     warnings (or, strict, the error) for changes seen late and dated
//     within a window.
//   - state.go: State, a kind's recorded objects at a resourceVersion as
//     a verb prints them (Objects: namespace, names, a match, the time
//     cells are computed at, lean tables, managedFields pruned), with the
//     kind's recorded Table columns.
//   - selector.go: Selector, -l and --field-selector as a test of a
//     recorded object.
//
// It opens no history (its callers hand it one) and prints no object.
package moment
