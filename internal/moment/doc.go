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
//
// It opens no history (its callers hand it one) and prints no object.
package moment
