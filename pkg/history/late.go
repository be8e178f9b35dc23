package history

import (
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// lateness is a recorder catching up: it started again from a record last
// known current at since, and the watch it resumed brings, as fast as the
// server sends them, the changes made while nothing recorded. When it sees
// a change is not when it happened: each is dated within a window (see
// Revision.Since) until one the API server dates at or after started
// shows that the changes come as they happen again, or a bookmark past
// them all says the server has sent every change before it.
type lateness struct {
	since   time.Time // the record was last known current then
	started time.Time // the recorder started then
	// floor is the earliest the last change dated can have happened: a
	// change happened after every change before it (resourceVersion
	// order), so none is dated earlier.
	floor time.Time
}

func newLateness(since, started time.Time) *lateness {
	return &lateness{since: since, started: started, floor: since}
}

// date is the window of a change seen at `at` (obj its JSON, prev the
// version before it or nil, op what it did): after since and by until.
// live says the API server dates it at or after the recorder started: it
// happened when it was seen, and the catch-up is over.
func (l *lateness) date(obj, prev []byte, op Op, at time.Time) (since, until time.Time, live bool) {
	since, until = l.floor, at
	if t, exact, ok := serverTime(obj, prev, op); ok {
		switch {
		case exact && !t.Before(l.started):
			return time.Time{}, at, true
		case exact && t.Add(time.Second).After(since) && !t.After(until):
			// The server's time is of the second the change was made in.
			since, until = laterOf(since, t), earlierOf(until, t.Add(time.Second))
		case !exact && !t.After(until):
			since = laterOf(since, t)
		}
	}
	l.floor = since
	return since, until, false
}

// dateLate dates a change seen while catching up (see lateness); the
// first one the server dates after the recorder started ends the
// catch-up.
func (rs *recordRun) dateLate(rev *Revision, prev []byte) {
	if rs.late == nil {
		return
	}
	since, until, live := rs.late.date(rev.Object, prev, rev.Op, rev.Time)
	if live {
		rs.late = nil
		return
	}
	rev.Since, rev.Time = since, until
}

// serverTime is the time the API server's own timestamps give a change:
// exact (to the second: the server writes whole seconds) for the time of
// the managedFields entry the change wrote (new, or stamped anew) and for
// a creation's creationTimestamp; a lower bound for a deletion (the
// deletion was asked for at deletionTimestamp less the grace period). ok
// is false when nothing dates it.
func serverTime(obj, prev []byte, op Op) (t time.Time, exact, ok bool) {
	if op == Deleted {
		meta := gjson.GetBytes(obj, "metadata")
		at, err := time.Parse(time.RFC3339, meta.Get("deletionTimestamp").Str)
		if err != nil {
			return time.Time{}, false, false
		}
		return at.Add(-time.Duration(meta.Get("deletionGracePeriodSeconds").Int()) * time.Second), false, true
	}
	if t, ok := writtenEntryTime(obj, prev); ok {
		return t, true, true
	}
	if prev == nil {
		if at, err := time.Parse(time.RFC3339, gjson.GetBytes(obj, "metadata.creationTimestamp").Str); err == nil {
			return at, true, true
		}
	}
	return time.Time{}, false, false
}

// writtenEntryTime is the newest time of the managedFields entries of obj
// that prev does not hold as they are (a manager, operation and
// subresource with that time): the entries the change wrote.
func writtenEntryTime(obj, prev []byte) (time.Time, bool) {
	before := gjson.GetBytes(prev, "metadata.managedFields")
	var newest time.Time
	gjson.GetBytes(obj, "metadata.managedFields").ForEach(func(_, e gjson.Result) bool {
		at, err := time.Parse(time.RFC3339, e.Get("time").Str)
		if err != nil || !at.After(newest) {
			return true
		}
		id := entryID(e)
		held := false
		before.ForEach(func(_, p gjson.Result) bool {
			held = entryID(p) == id
			return !held
		})
		if !held {
			newest = at
		}
		return true
	})
	return newest, !newest.IsZero()
}

// entryID names a managedFields entry by what a write of it changes: its
// manager, operation, subresource and time.
func entryID(e gjson.Result) string {
	return strings.Join([]string{e.Get("manager").Str, e.Get("operation").Str, e.Get("subresource").Str, e.Get("time").Str}, "\x00")
}

func laterOf(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func earlierOf(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
