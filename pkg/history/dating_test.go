package history

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// at is a time of the tests' timeline: second s after a base.
func at(s float64) time.Time {
	return time.Date(2026, 12, 6, 1, 0, 0, 0, time.UTC).Add(time.Duration(s * float64(time.Second)))
}

// withFields is a ConfigMap whose managedFields entries have these
// "manager=second" times (whole seconds of the timeline).
func withFields(entries ...string) []byte {
	var fields []string
	for _, e := range entries {
		manager, sec, _ := strings.Cut(e, "=")
		var s float64
		fmt.Sscan(sec, &s)
		fields = append(fields, fmt.Sprintf(`{"manager":%q,"operation":"Update","time":%q}`, manager, at(s).Format(time.RFC3339)))
	}
	return fmt.Appendf(nil, `{"metadata":{"name":"a","creationTimestamp":%q,"managedFields":[%s]},"data":{}}`,
		at(1).Format(time.RFC3339), strings.Join(fields, ","))
}

func TestLatenessDate(t *testing.T) {
	deleted := fmt.Appendf(nil, `{"metadata":{"name":"a","deletionTimestamp":%q,"deletionGracePeriodSeconds":30}}`, at(60).Format(time.RFC3339))
	for _, tc := range []struct {
		name         string
		obj, prev    []byte
		op           Op
		seen         float64
		since, until float64 // the window wanted; until alone: live
		live         bool
	}{
		{name: "the entry the change wrote dates it to its second", obj: withFields("c=1", "editor=20"), prev: withFields("c=1", "editor=5"), op: Modified, seen: 100, since: 20, until: 21},
		{name: "a creation dates by its entries", obj: withFields("c=12"), op: Added, seen: 100, since: 12, until: 13},
		{name: "a creation without entries by its creationTimestamp", obj: []byte(fmt.Sprintf(`{"metadata":{"creationTimestamp":%q}}`, at(14).Format(time.RFC3339))), op: Added, seen: 100, since: 14, until: 15},
		{name: "no entry written: the whole window", obj: withFields("c=1", "editor=5"), prev: withFields("c=1", "editor=5"), op: Modified, seen: 100, since: 10, until: 100},
		{name: "a deletion after its request, grace period less", obj: deleted, op: Deleted, seen: 100, since: 30, until: 100},
		{name: "a server time before the window (another clock): the window", obj: withFields("editor=3"), prev: withFields("editor=2"), op: Modified, seen: 100, since: 10, until: 100},
		{name: "a server time after the restart: live", obj: withFields("editor=90"), prev: withFields("editor=5"), op: Modified, seen: 100, until: 100, live: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLateness(at(10), at(90))
			since, until, live := l.date(tc.obj, tc.prev, tc.op, at(tc.seen))
			if live != tc.live || !until.Equal(at(tc.until)) || (!live && !since.Equal(at(tc.since))) {
				t.Errorf("date: %v..%v live %v; want %v..%v live %v", since, until, live, at(tc.since), at(tc.until), tc.live)
			}
		})
	}
}

// TestLatenessFloor: a change is never dated before the one before it.
func TestLatenessFloor(t *testing.T) {
	l := newLateness(at(10), at(90))
	if since, _, _ := l.date(withFields("editor=40"), withFields("editor=5"), Modified, at(100)); !since.Equal(at(40)) {
		t.Fatalf("first change since %v", since)
	}
	since, until, _ := l.date(withFields("editor=5"), withFields("editor=5"), Modified, at(101))
	if !since.Equal(at(40)) || !until.Equal(at(101)) {
		t.Errorf("an undated change after one dated at 40: %v..%v, want 40..101", since, until)
	}
}

// setMark makes the mark of rv say time s of the timeline.
func setMark(t *testing.T, s Record, rv uint64, sec float64) {
	t.Helper()
	if _, err := sqlOf(t, s).db.Exec(sqlOf(t, s).dialect.bind(`UPDATE marks SET time = ? WHERE rv = ?`), millis(at(sec)), rv); err != nil {
		t.Fatal(err)
	}
}

// TestMomentAt: a time before, inside and after a catch-up whose changes
// are dated within windows: exact where the windows say, the changes that
// may or may not have happened listed otherwise.
func TestMomentAt(t *testing.T) {
	ctx := context.Background()
	onEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		const res = "configmaps.v1."
		if _, err := s.Begin(ctx, res, 6); err != nil {
			t.Fatal(err)
		}
		if err := s.Write(ctx, res, Batch{RV: 6, Revisions: []Revision{rev("a", 5, Added, "1"), rev("b", 6, Added, "1")}}); err != nil {
			t.Fatal(err)
		}
		setMark(t, s, 6, 10)
		c, a := rev("c", 8, Added, "1"), rev("a", 9, Modified, "2")
		c.Since, c.Time = at(20), at(21) // dated by the server
		a.Since, a.Time = at(15), at(90) // not dated: the whole outage
		if err := s.Write(ctx, res, Batch{RV: 9, Revisions: []Revision{c, a}}); err != nil {
			t.Fatal(err)
		}
		setMark(t, s, 9, 90)
		for _, tc := range []struct {
			sec       float64
			rv        uint64
			uncertain string
		}{
			{sec: 12, rv: 6},
			{sec: 16, rv: 6, uncertain: "c@8,a@9"},
			{sec: 20.5, rv: 6, uncertain: "c@8,a@9"},
			{sec: 22, rv: 8, uncertain: "a@9"},
			{sec: 95, rv: 9},
		} {
			m, err := s.MomentAt(ctx, res, at(tc.sec))
			if err != nil {
				t.Fatal(err)
			}
			if m.RV != tc.rv || names(m.Uncertain) != tc.uncertain {
				t.Errorf("at %vs: resourceVersion %d, uncertain %q; want %d, %q", tc.sec, m.RV, names(m.Uncertain), tc.rv, tc.uncertain)
			}
		}
		revs, err := s.Revisions(ctx, res, "default", "c")
		if err != nil || len(revs) != 1 || !revs[0].Since.Equal(at(20)) || !revs[0].Time.Equal(at(21)) {
			t.Errorf("Revisions of c: %+v, %v; want one dated 20..21", revs, err)
		}
	})
}

// TestMomentAtGap: a time inside a gap (after the record was last known
// current, before the list that ended it) fails with the gap's times; a
// time before it is the state where it starts, though a later change of
// another resource was marked by then.
func TestMomentAtGap(t *testing.T) {
	ctx := context.Background()
	onEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		const res, other = "configmaps.v1.", "leases.v1.coordination.k8s.io"
		for _, r := range []string{res, other} {
			if _, err := s.Begin(ctx, r, 5); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Write(ctx, res, Batch{RV: 5, Revisions: []Revision{rev("a", 5, Added, "1")}, Alive: at(30)}); err != nil {
			t.Fatal(err)
		}
		setMark(t, s, 5, 10)
		if err := s.Write(ctx, other, Batch{RV: 7, Revisions: []Revision{rev("l", 7, Added, "1")}}); err != nil {
			t.Fatal(err)
		}
		setMark(t, s, 7, 20)
		if _, err := s.Begin(ctx, res, 40); err != nil { // a relist at 40, after a restart
			t.Fatal(err)
		}
		if _, err := sqlOf(t, s).db.Exec(sqlOf(t, s).dialect.bind(`UPDATE gap_times SET to_time = ?`), millis(at(60))); err != nil {
			t.Fatal(err)
		}
		if m, err := s.MomentAt(ctx, res, at(25)); err != nil || m.RV != 5 {
			t.Errorf("before the gap, after another resource's change: %+v, %v; want resourceVersion 5", m, err)
		}
		var gap *GapError
		_, err := s.MomentAt(ctx, res, at(45))
		if !errors.As(err, &gap) || gap.From != 5 || gap.To != 40 || !gap.Since.Equal(at(30)) || !gap.Until.Equal(at(60)) {
			t.Fatalf("inside the gap: %v", err)
		}
		if want := "the history has a gap from resourceVersion 5 to 40, from 2026-12-06T01:00:30Z to 2026-12-06T01:01:00Z (nothing was recording)"; err.Error() != want {
			t.Errorf("the gap says %q, want %q", err, want)
		}
	})
}

// TestRecorderHeartbeat: a recorder that waits for changes writes that
// its record is current (alive), so that a gap after a crash starts
// there, not at the last change; where the record is complete to stays
// at the last change (a bookmark's resourceVersion is its store's only).
func TestRecorderHeartbeat(t *testing.T) {
	onEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		src := newSource("configmaps")
		apply(t, src, list(t, "10", obj(t, "a@5", "1"))...)
		run := startRecorder(s, src, RecorderOptions{Heartbeat: 20 * time.Millisecond})
		defer run.stop()
		run.waitFor(t, 10)
		synced := time.Now()
		apply(t, src, watch.Event[*object.Object]{Type: watch.Bookmark, ResourceVersion: "40"})
		db := sqlOf(t, s)
		var alive time.Time
		for !alive.After(synced) {
			<-run.written
			var err error
			if alive, err = db.aliveAt(context.Background(), db.conn(), 1, 0); err != nil {
				t.Fatal(err)
			}
		}
		if latest, err := s.Latest(context.Background(), "configmaps.v1."); err != nil || latest != 10 {
			t.Errorf("Latest after a bookmark: %d, %v; want 10", latest, err)
		}
	})
}

// TestRecorderCatchUp: a recorder started again from its record (no gap)
// dates what the resumed watch brings within the time nothing recorded,
// as closely as the server's timestamps say, until a change the server
// dates after its start.
func TestRecorderCatchUp(t *testing.T) {
	onEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		src := newSource("configmaps")
		apply(t, src, list(t, "10", obj(t, "a@5", "1"))...)
		run := startRecorder(s, src, RecorderOptions{})
		run.waitFor(t, 10)
		run.stop()
		stopped := time.Now()

		src = newSource("configmaps")
		apply(t, src, list(t, "10", obj(t, "a@5", "1"))...) // started from the record
		run = startRecorder(s, src, RecorderOptions{})
		defer run.stop()
		run.waitFor(t, 10)
		undated := obj(t, "a@11", "2")
		future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
		dated, err := object.Decode(fmt.Appendf(nil, `{"metadata":{"namespace":"default","name":"b","resourceVersion":"12","managedFields":[{"manager":"m","operation":"Update","time":%q}]}}`, future), object.Prune{})
		if err != nil {
			t.Fatal(err)
		}
		after := obj(t, "a@13", "3")
		apply(t, src, live(watch.Apply, undated), live(watch.Apply, dated), live(watch.Apply, after))
		run.waitFor(t, 13)
		revs, err := s.Revisions(context.Background(), "configmaps.v1.", "default", "a")
		if err != nil || len(revs) != 3 {
			t.Fatalf("revisions of a: %v, %v", revs, err)
		}
		if r := revs[1]; r.Since.IsZero() || r.Since.After(stopped) || !r.Time.After(r.Since) {
			t.Errorf("the change seen while catching up: since %v, by %v; want a window from before %v", r.Since, r.Time, stopped)
		}
		if r := revs[2]; !r.Since.IsZero() {
			t.Errorf("a change after one the server dates after the restart is dated %v..%v, want exact", r.Since, r.Time)
		}
	})
}
