// Package timeline reads a recorded history (serve --record, pkg/history)
// as lanes of marks through time: what `kubectl reflect timeline` draws
// in a terminal or as plain text, and what an exporter (HTML) writes.
//
// # The model (model.go)
//
// A Timeline spans [Since, Until] and holds Groups, one per context,
// kind and namespace (in the order of the query's sources and kinds,
// then by namespace); a Group holds one Lane per object (by name); a
// Lane holds the object's Marks, oldest first. A Mark is a revision (its
// time, or for a change the recorder saw late the window Since..Time it
// happened in, and its resourceVersion) of one MarkType: Create,
// Initial (there when recording began), Spec (generation moved or a
// non-status field changed), Status (only status changed), Change (a
// history written before revisions were classified), Delete, or Warning
// (a Warning Event about the object, where Events are recorded: its
// reason and message in Mark.Event). Each type has a Glyph for text,
// and a Precedence for marks sharing a cell.
//
// # Reading (build.go)
//
//   - Build(ctx, sources, Query) reads a Timeline; Query names the kinds
//     (Kind: the record's resource name, how people read it, the Kind an
//     Event names, whether namespaced), the namespace, a label selector
//     and the span.
//   - Stream(ctx, sources, Query, fn) gives fn each lane as it is read,
//     without keeping it: the iterator an exporter streams from.
//     Timeline.Lanes iterates a built one.
//
// Speed: marks are read from the record's columns alone
// (history.MarkReader.EachMark: no object is decoded); whether a change
// was spec or status was classified when it was written (history's class
// column). Objects are decoded only for Warning Events (the few the
// class column marks) and, with a selector, one revision a lane.
//
// # The axis (axis.go)
//
// Scale maps times to columns: Column, Time, Density (the marks in each
// column, the density row) and Ticks (real times at round intervals,
// labelled in a time zone).
//
// timelinetest writes a realistic record (pods, node Leases, Events;
// Cluster3000 is the 3,000-pod cluster for 24 h) for tests and
// benchmarks.
//
// It does not know terminals, HTML or the command line.
package timeline
