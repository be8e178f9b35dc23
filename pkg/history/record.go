package history

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Op is what a revision did to its object.
type Op uint8

// The values are kept in the revisions table (its op column): a new one
// takes the next number, and none is ever renumbered.
const (
	// Added: the object was created while the recorder watched (a watch
	// event said so). Records written before Initial existed hold Added
	// for objects first seen by a state too.
	Added Op = iota + 1
	// Modified: the object changed.
	Modified
	// Deleted: the object went away; the revision holds its last state.
	Deleted
	// Initial: the object was there when the recorder first saw it (it
	// existed when recording began, or a whole state or a relist found it
	// and its creation was not seen). It is read as Added is (the first
	// revision of the object's life as recorded); its Manager is "", since
	// no change of it was seen.
	Initial
)

func (o Op) String() string {
	switch o {
	case Added:
		return "ADDED"
	case Modified:
		return "MODIFIED"
	case Deleted:
		return "DELETED"
	case Initial:
		return "INITIAL"
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// Appeared says whether a revision of op starts its object's life as
// recorded (Added or Initial): it has no revision before it to diff
// against, and a replay of it says the object was not there before.
func (o Op) Appeared() bool { return o == Added || o == Initial }

// Revision is one recorded change of one object.
type Revision struct {
	Namespace, Name string
	// RV is the change's resourceVersion: the object's own for Added and
	// Modified, the deletion's (or the list's that found it gone) for
	// Deleted.
	RV uint64
	// Time is when the change happened: when the recorder saw it, as it
	// happened; or, for a change seen late (Since is set), the latest it
	// can have happened.
	Time time.Time
	// Since is zero for a change seen as it happened. For one seen late
	// (the recorder was catching up on what happened while it was not
	// running) the change happened after Since and by Time: the window
	// the API server's own timestamps (managedFields, creation, deletion)
	// narrow it to, else the time nothing recorded.
	Since time.Time
	Op    Op
	// Manager is the field manager who made the change (see Manager), ""
	// when that is not known: an Initial or Deleted revision, or a change
	// no managedFields entry tells of.
	Manager string
	// Class is what a Modified revision changed (spec or status), or that
	// the object is a Warning Event; a writer leaves it Unclassified and
	// the store classifies the revision against the one before (Classify).
	Class Class
	// Object is the object's JSON as it was (for Deleted: its last state),
	// Secrets' data hashed unless recorded in full (see Recorder).
	Object []byte
	// Cells are the API server's printer cells of the object (a JSON
	// array), nil when none were recorded.
	Cells []byte
	// Before, when the writer has it, is the object's JSON at the
	// revision before (as recorded, Secrets hashed alike): the store
	// encodes Object against it, rather than read that revision back,
	// when it is the one the store wrote last (a sum of each object's
	// latest revision written says so). Anything else is ignored.
	Before []byte
}

// Batch is what a recorder writes of one resource at once: its changes, in
// resourceVersion order, and the resourceVersion its store has reached.
type Batch struct {
	Revisions []Revision
	// RV is the store's resourceVersion after these changes: the record
	// of the resource is complete up to it.
	RV uint64
	// Columns are the resource's Table columns (JSON), kept to print its
	// revisions as get would; nil keeps those recorded.
	Columns []byte
	// Alive, when set, is a time the recorder knew the record current
	// by: everything its store had applied then is in this batch or
	// written. A gap or a catch-up after a restart starts there.
	Alive time.Time
}

// Start is what a store remembers of a resource when its recorder starts.
type Start struct {
	// Present maps the key (namespace/name) of each object the record
	// holds as present to the resourceVersion of its latest revision.
	Present map[string]uint64
	// Latest is the resourceVersion the record is complete to; 0 for a
	// resource never recorded.
	Latest uint64
	// Alive is when the record was last known current (Batch.Alive; a
	// history written before it kept one: when it reached Latest), zero
	// when unknown.
	Alive time.Time
}

// Record keeps revisions. Its implementations (SQLite, PostgreSQL) are
// safe for concurrent use: one writer per resource (a Recorder), any
// number of readers.
type Record interface {
	// Begin tells the store a recorder starts on resource res (for
	// example "configmaps.v1." or "deployments.v1.apps") whose first list
	// is at rv, and returns what the record already holds of it. The
	// record has a gap from Start.Latest to rv (the recorder was not
	// running): the store marks it so that StateAt inside it fails with
	// a *GapError.
	Begin(ctx context.Context, res string, rv uint64) (Start, error)
	// Write appends a batch of res's revisions, atomically: after a crash
	// the record holds the whole batch or none of it. It keeps no
	// reference to the batch: the caller may reuse its memory once Write
	// returns (a recorder unpacks each batch's JSON into one buffer).
	Write(ctx context.Context, res string, b Batch) error
	// StateAt returns the objects of res present at resourceVersion rv:
	// each one's latest revision at or before rv, in no given order. It
	// fails with a *BeforeError when rv is before the record of res, a
	// *GapError inside a gap and ErrNotRecorded for a resource never
	// recorded.
	StateAt(ctx context.Context, res string, rv uint64) ([]Revision, error)
	// EachAt gives fn the state StateAt returns, a batch at a time, on up
	// to workers goroutines at once (w, below workers, says which; one
	// goroutine's batches come one after another), and returns the first
	// error fn returns as it is. A batch and its bytes are fn's during
	// the call only: the next batch may reuse them. It is how a whole
	// state is decoded without holding all of its JSON.
	EachAt(ctx context.Context, res string, rv uint64, workers int, fn func(w int, batch []Revision) error) error
	// Latest returns the resourceVersion the record of res is complete
	// to: the state there is StateAt's, and a watch from it brings what
	// came after (ErrNotRecorded for a resource never recorded).
	Latest(ctx context.Context, res string) (uint64, error)
	// Changes returns the revisions of res after from up to to, in
	// resourceVersion order (each object's JSON decoded): what turns the
	// state at from into the state at to. It fails as StateAt does when
	// from is before the record, with a *GapError when a gap lies
	// between them, and with ErrTooMany when there are more than limit
	// (0: no limit).
	Changes(ctx context.Context, res string, from, to uint64, limit int) ([]Revision, error)
	// Revisions returns every revision of one object, oldest first (none:
	// ErrNotRecorded when res was never recorded, else an empty slice).
	Revisions(ctx context.Context, res, namespace, name string) ([]Revision, error)
	// Columns returns res's Table columns as recorded (JSON), nil when none.
	Columns(ctx context.Context, res string) ([]byte, error)
	// ResourceVersionAt returns the newest resourceVersion the store had
	// recorded at t (a write's), and the time of the oldest write kept
	// (*BeforeError when t is before it).
	ResourceVersionAt(ctx context.Context, t time.Time) (uint64, error)
	// MomentAt returns what the record knows of res at t: the
	// resourceVersion whose state is res's state then, and the changes
	// seen late that may or may not have happened by t (Moment). It fails
	// as ResourceVersionAt does, and with a *GapError when t is inside a
	// gap of res: after its record was last known current, before the
	// list that ended the gap.
	MomentAt(ctx context.Context, res string, t time.Time) (Moment, error)
	// TimeOf returns when the store recorded resourceVersion rv: the time
	// of the newest write at or before it (zero when none is kept).
	TimeOf(ctx context.Context, rv uint64) (time.Time, error)
	// Checkpoint keeps res's state where its record ends as one piece,
	// so that StateAt there and after reads it, and the revisions since,
	// rather than every object's latest revision (a recorder calls it
	// now and then, and when it stops). Older checkpoints go.
	Checkpoint(ctx context.Context, res string) error
	// Prune drops what only the state before t needs: the revisions
	// superseded by then, keeping each object's state at t. The record
	// then begins at t, for cause (Begins, BeforeError say why).
	Prune(ctx context.Context, t time.Time, cause Cause) error
	// Begins returns where the record of res begins and why, or the
	// whole record's when res is "" (ErrNotRecorded: nothing is).
	Begins(ctx context.Context, res string) (Beginning, error)
	// Usage returns what each resource's record grew by since a time
	// (to the minute), by resource name.
	Usage(ctx context.Context, since time.Time) ([]Usage, error)
	// Location names the store for people (a path, a database).
	Location() string
	Close() error
}

// ErrNotRecorded: the store holds nothing of the resource.
var ErrNotRecorded = errors.New("not recorded")

// ErrTooMany: more revisions than the limit asked.
var ErrTooMany = errors.New("more revisions than asked for")

// ErrForeign: the file or database is not a kubectl-reflect history.
var ErrForeign = errors.New("not a kubectl-reflect history")

// BeforeError is a query before what the record holds: it begins at
// Oldest (a resourceVersion), written at Time, because recording began
// there or, when Pruned is set, a prune moved it there.
type BeforeError struct {
	Oldest uint64
	Time   time.Time
	Pruned *Cause
}

func (e *BeforeError) Error() string {
	b := Beginning{RV: e.Oldest, Time: e.Time, Pruned: e.Pruned}
	return fmt.Sprintf("the record begins at %s: %s", b, b.Why())
}

// GapError is a query inside a stretch the recorder did not see (it was
// not running): the record knows the state at From and at To, not between.
// Since and Until, when the history kept them, are when the record was
// last known current at From and when the list at To ended the gap.
type GapError struct {
	From, To     uint64
	Since, Until time.Time
}

func (e *GapError) Error() string {
	if e.Since.IsZero() {
		return fmt.Sprintf("the history has a gap from resourceVersion %d to %d (nothing was recording)", e.From, e.To)
	}
	return fmt.Sprintf("the history has a gap from resourceVersion %d to %d, from %s to %s (nothing was recording)",
		e.From, e.To, e.Since.UTC().Format(time.RFC3339), e.Until.UTC().Format(time.RFC3339))
}

// Open opens the history at location: a PostgreSQL database when it is a
// postgres:// URL (IsPostgres), else an SQLite file.
func Open(ctx context.Context, location string, opts OpenOptions) (Record, error) {
	if IsPostgres(location) {
		return OpenPostgres(ctx, location, opts)
	}
	return OpenSQLite(ctx, location, opts)
}
