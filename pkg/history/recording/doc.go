// Package recording is `serve --record`: a daemon's recorders writing its
// reflectors' changes to a history (pkg/history), the warm restart from
// it, and the answers it gives pkg/serve for what the stores' memory
// window no longer holds. It also opens the record for the verbs that
// read it (get --at, history, diff, timeline, watch --since).
//
// It is a package of its own, beside the history it writes, so that the
// daemon assembles it and owns none of it: a watch resumed from before
// the memory window goes pkg/serve -> Recording.Answers (here) ->
// pkg/history and back to pkg/serve, never through pkg/daemon. It lives
// under pkg/, not internal/, because its importer pkg/daemon does and no
// pkg/ package imports internal/; like the daemon, it is this binary's
// machinery, not the library (pkg/doc.go).
//
// # The pieces
//
//   - Recording (recording.go) is one daemon's recording: Open (the
//     history, checked whole beside the reflectors' first reads), Begin
//     (says where it records), Add (a recorder per kind, one writer per
//     resource at a time), Started, Stop (the recorders write what they
//     hold, a last checkpoint). prune.go drops what Config.Retention no
//     longer keeps and what is beyond Config.MaxSize, every ten minutes,
//     and checkpoints each kind's state; checkpoint.go makes the first
//     checkpoint due early, after 10,000 revisions.
//   - A warm restart (warm.go): Seeder starts each reflector from what
//     the history holds (Recorded, which watch --since also reads) and
//     Announce says which kinds were restored.
//   - Answers (answers.go) is serve.History: an exact LIST at, and a WATCH
//     from, a resourceVersion older than the stores hold.
//   - All (all.go, settle.go, recordable.go) is `serve --record` with no
//     KIND: every kind the user may list and watch, and those the API
//     server serves later, found by reading discovery again.
//   - Status (status.go) is /debug/history (Recording.Handler) and its
//     lines in `serve status`; a prune that moves the record's start is
//     said once.
//   - OpenRecord and DefaultPath (open.go): the record a verb reads,
//     named, else found by a Locate (daemon.HistoryOf: the running
//     daemon's, else the default file of the identity).
//
// It does not know the daemon's process, files or flags: the daemon gives
// it its Set, its scope, its identity's name and where to say what it
// records (AllOptions.Publish). How a change is stored is pkg/history's.
package recording
