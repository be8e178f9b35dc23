// Package codec is the history's format of bytes: how a revision's object
// is kept (a chain of a keyframe and deltas, s2 blocks: codec.go, with a
// matcher of our own for the deltas: delta.go) and how a checkpoint's
// parts pack a state's entries (part.go).
//
// It is a package of its own for two reasons. It is the part of the
// history kept across versions, and so the part a damaged or foreign file
// reaches first: its decoders are fuzzed (fuzz_test.go; `make test` runs
// them for a few seconds each), and they fail with ErrCorrupt, never a
// panic or an allocation a block's header asks for. And a fuzz target
// beside SQLite crawls: the fuzzer instruments every package linked, and
// modernc.org/sqlite's millions of counters made pkg/history's targets run
// 8 inputs in 15 s where this package runs 500,000.
//
// It knows nothing of SQL, resources or the recorder: pkg/history stores
// what Encode and Parts give and reads back with Decode, DecodeChain and
// DecodePart.
package codec
