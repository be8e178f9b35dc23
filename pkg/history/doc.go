// Package history is the reflector's memory over time: every change a
// store applied, kept on disk, so that the state at a past resourceVersion
// or time, and one object's revisions, can be read after the API server
// has compacted them away (`serve --record`, `get --at`, `history`).
//
// It is a package of its own because it is the one part of the project
// that owns files of a database: pkg/store is memory, pkg/daemon a
// process; both stay free of SQL and of a format kept across versions.
//
// # The pieces
//
//   - Record (record.go) is the contract: Begin (a recorder starts on a
//     resource; the record says what it holds and marks a gap since its
//     end), Write (one batch, atomic), StateAt and EachAt (a state,
//     whole or a batch at a time), Changes, Revisions, Columns,
//     ResourceVersionAt and TimeOf (times to resourceVersions and back),
//     Checkpoint, Prune (retention). One writer per resource, any number
//     of readers.
//   - A state (state.go) is read from the checkpoint nearest to it
//     (checkpoints.go; checkpoint.go maps its entries to revisions) and the objects changed between
//     them, streamed a part at a time to a few goroutines that decode it
//     into buffers they reuse; ObjectsAt (objects.go) decodes it into
//     objects so, for get --at, an exact list and a warm restart.
//   - sqlStore (sqldb.go, write.go, read.go, changes.go, prune.go;
//     stmts.go prepares each query once a transaction; fields.go parses
//     keys and resourceVersions) is the
//     Record over database/sql, one set of queries for both engines; a
//     dialect (dialect.go) binds their placeholders and keeps the schema
//     (schema.go) and the one query shape they do not share.
//   - SQLite (sqlite.go) keeps it in one file with modernc.org/sqlite
//     (pure Go: the five release platforms build without cgo), WAL mode
//     so that queries read while the daemon writes, mode 0600; Check and
//     Shrink are its own. A file that is not a history is refused
//     (ErrForeign).
//   - Postgres (postgres.go) keeps it in a PostgreSQL database (jackc/pgx
//     through database/sql), for a daemon a team shares; Open picks it
//     for a postgres:// URL. Its tests run on Debian's server, started by
//     test/postgres: the store's tests run on both engines.
//   - The codec (internal/codec: a package of its own, fuzzed) keeps each
//     object's revisions as chains: a keyframe, then deltas (s2 blocks
//     whose dictionary is the revision before, made by a matcher of our
//     own), at most 32 long, and packs a checkpoint's parts; the
//     measurements are in its comments. A writer encodes a change
//     against its object's chain head: kept in memory (heads.go), or the
//     JSON the recorder gives when a sum of the head says it is the same;
//     the sums outlive a clean restart in the heads' table
//     (savedheads.go), so a restarted daemon does not read chains back.
//   - Recorder (recorder.go; recordchanges.go takes each change,
//     recordbatch.go writes the batches) turns a store's ordered
//     subscription into batches: what the store holds when it first syncs, diffed against
//     the record (changes and deletions made while nothing recorded, and
//     a gap), then every change in resourceVersion order; a Resync (the
//     recorder fell behind) is diffed the same way. Writes that fail are
//     retried, said once per cause. Secrets' values are hashed
//     (HashSecretData) unless asked otherwise; an object a state or a
//     relist found is Initial, not Added (its creation was not seen).
//   - Manager (manager.go) tells who made a change: the managedFields
//     entry it wrote (new, or of a new time), else the entry that owns
//     the fields that changed (owned.go: fieldsV1 read against both
//     objects), else no one.
//   - Time (dating.go, moment.go, late.go, heartbeat.go): a recorder
//     writes that its record is current with each batch and every 10 s
//     while idle (alive), so that a gap keeps when it began and ended
//     (gap_times); one started again dates what its resumed watch brings
//     within the time nothing recorded, narrowed by the API server's own
//     times (lateness, the dated table); MomentAt turns a time into the
//     state of one resource then and the changes that may or may not
//     have happened by it.
//   - Marks (marks.go, classify.go): each revision's class (spec or
//     status change, or a Warning Event) is written with it, classified
//     from the members of its JSON against the revision before, in a
//     column a history written before it gains when opened to write;
//     MarkReader reads revisions without their objects (EachMark), the
//     Warning Events (EachWarning) and one object's revision at a
//     resourceVersion (RevisionAt), for pkg/timeline.
//   - Leases' renewals alone are kept once per interval (renewals.go).
//   - What it costs and where it begins (usage.go, begins.go): each Write
//     counts its revisions and bytes per resource and minute (the
//     written table; Usage reads them, serve status prints them); a
//     write of no revision is marked at most every 10 s. Prune keeps its
//     cut and Cause (retention, or SQLite.Shrink's size), so that Begins
//     and a *BeforeError say where the record begins and why.
//
// Resource versions are compared as numbers, as the API server's watch
// cache does. Times are in milliseconds: the recorder's (when a change
// reached the store) for a change seen as it happened, a window for one
// seen late (Revision.Since); a time names the newest resourceVersion
// first recorded by then (marks), whichever resource wrote it, and
// MomentAt corrects it for one resource by its gaps and windows.
//
// It does not know the API server, terminals or the daemon's process: a
// Source gives it a store's changes, and readers (get --at, history,
// watch --since, a warm restart) ask the Record. A daemon's recording
// (its recorders, pruning, warm restart, and the answers it gives
// pkg/serve from the record) is pkg/history/recording, which also opens
// the record for the verbs.
package history
