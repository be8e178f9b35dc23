// Package object is the one representation of an API object that the other
// packages share: its identity and resourceVersion decoded, its JSON kept as
// the server sent it (pruned of fields nobody reads), and, when the server was
// asked for a Table, its printer cells.
//
// It exists so that pkg/watch, pkg/store and pkg/output agree on what an
// object is without knowing each other, and so that no layer pays for
// decoding an object into maps it will only print or compare: JSON output
// writes Raw as it is, and equality is a resourceVersion comparison.
//
// It knows JSON and object metadata; it knows nothing about HTTP, stores or
// terminals.
package object
