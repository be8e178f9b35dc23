package history

// The SQLite schema (PostgreSQL's is the same, in its types). A user may
// read it with the sqlite3 shell; revisions.object is a blob (codec.go),
// revisions.time milliseconds since the Unix epoch.
const (
	formatName    = "kubectl-reflect history"
	formatVersion = "1"
)

var schemaStatements = []string{
	`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID`,
	// One row per resource recorded ("configmaps.v1.", "deployments.v1.apps"):
	// the record is complete from oldest on (but in gaps), up to latest.
	`CREATE TABLE resources (
		id INTEGER PRIMARY KEY,
		name TEXT NOT NULL UNIQUE,
		oldest INTEGER NOT NULL,
		latest INTEGER NOT NULL,
		columns BLOB
	)`,
	// Stretches a recorder did not see: the state is known at from_rv and
	// at to_rv, not between.
	`CREATE TABLE gaps (
		resource INTEGER NOT NULL,
		from_rv INTEGER NOT NULL,
		to_rv INTEGER NOT NULL,
		PRIMARY KEY (resource, from_rv)
	) WITHOUT ROWID`,
	// When each write happened, to turn a time into a resourceVersion.
	`CREATE TABLE marks (rv INTEGER PRIMARY KEY, time INTEGER NOT NULL)`,
	`CREATE INDEX marks_time ON marks (time)`,
	// base is 0 for a keyframe, else the rv of the keyframe the object is
	// a delta of (codec.go).
	`CREATE TABLE revisions (
		resource INTEGER NOT NULL,
		namespace TEXT NOT NULL,
		name TEXT NOT NULL,
		rv INTEGER NOT NULL,
		time INTEGER NOT NULL,
		op INTEGER NOT NULL,
		manager TEXT NOT NULL,
		base INTEGER NOT NULL,
		object BLOB NOT NULL,
		cells BLOB
	)`,
	// A rowid table and its key as an index, not a table WITHOUT ROWID: a
	// row of one is kept whole in its page up to about 4 KiB, where a
	// WITHOUT ROWID row over about 1 KiB (a keyframe) spills to an
	// overflow page of its own, mostly empty (TestEditedConfigMapSize:
	// 471 bytes per revision that way).
	`CREATE UNIQUE INDEX revisions_key ON revisions (resource, namespace, name, rv)`,
}
