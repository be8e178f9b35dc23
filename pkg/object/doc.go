// Package object is the one representation of an API object that the other
// packages share: its identity and resourceVersion decoded, its JSON kept as
// the server sent it (pruned of fields nobody reads), and, when the server was
// asked for a Table, its printer cells.
//
// It exists so that pkg/watch, pkg/store and pkg/output agree on what an
// object is without knowing each other, and so that no layer pays for
// decoding an object into maps it will only print or compare: JSON output
// writes the JSON as it is, and equality is a resourceVersion comparison.
//
// A Decoder turns the JSON of one resource's objects into Objects: it copies
// (so callers reuse their read buffers), prunes in place (prune.go: fields
// nobody reads, or all but the metadata of objects a controller does not
// manage), and, for stores
// that live long, packs the JSON (pack.go: an s2 dictionary and a Huffman
// table learnt from the first objects; about two thirds of the JSON for
// ConfigMaps of random text, a couple of microseconds to read back). Given
// the objects a store already holds (Known), it returns the stored object
// for one that has not changed, so a relist allocates next to nothing.
//
// A Path names fields as people type them (dotted keys, list indexes, [*],
// quoted keys, kubectl's JSONPath braces): pathparse.go is the one parser
// of field paths (diff --ignore's and blame --field's), strict, its errors
// saying where a path stops making sense; path.go removes what a Path
// names from a decoded document (what diff --ignore leaves out) and looks
// the one value it names up in JSON (what blame --field follows).
//
// It knows JSON and object metadata; it knows nothing about HTTP, stores or
// terminals.
package object
