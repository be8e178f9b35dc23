package serve

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// serverPast adds events to what the API server's watch cache holds from
// before the daemon's first list (at 10).
func (fx *fixture) serverPast(events ...watch.WatchEvent[*object.Object]) {
	fx.f.mu.Lock()
	defer fx.f.mu.Unlock()
	fx.f.past = append(events, fx.f.past...)
}

func wireEvent(typ watch.WatchEventType, o *object.Object) watch.WatchEvent[*object.Object] {
	return watch.WatchEvent[*object.Object]{Type: typ, Object: o, ResourceVersion: o.ResourceVersion}
}

// TestWatchClosingBookmark: a watch that ends at its timeoutSeconds ends
// with a BOOKMARK at the resourceVersion of the moment when it allows
// bookmarks and the resourceVersion moved past what it was sent (changes
// its namespace left out), as the API server's does, so that its client
// resumes without a replay; otherwise it just ends.
func TestWatchClosingBookmark(t *testing.T) {
	fx := newFixture(t, 16, cm(t, "a", "x", 5))
	bookmarks := fx.watch("/api/v1/namespaces/a/configmaps?watch=1&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=1")
	plain := fx.watch("/api/v1/namespaces/a/configmaps?watch=1&resourceVersion=10&timeoutSeconds=1")
	seen := fx.watch("/api/v1/configmaps?watch=1&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=1")
	fx.send(watch.WatchModified, cm(t, "a", "x", 11))
	fx.send(watch.WatchAdded, cm(t, "b", "y", 12))
	bookmarks.expect("MODIFIED x@11", "BOOKMARK @12", "END")
	plain.expect("MODIFIED x@11", "END")
	seen.expect("MODIFIED x@11", "ADDED y@12", "END") // nothing it was not sent
}

// TestWatchBeforeFirstList: a client that holds a resourceVersion from
// before the daemon's first list (it read the API server before) resumes
// there without relisting whenever the API server still holds the changes
// since: the daemon reads them from it, then goes on with its own. Where
// it cannot answer exactly (the server no longer holds them; a selector
// that reads an object whose earlier version the server's events do not
// say) it answers 410, naming the oldest resourceVersion it can answer, as
// the API server does.
func TestWatchBeforeFirstList(t *testing.T) {
	fx := newFixture(t, 16, cm(t, "a", "x", 5, "app=web"), cm(t, "a", "y", 7, "app=db"))
	fx.serverPast(
		wireEvent(watch.WatchAdded, cm(t, "a", "x", 5, "app=web")),
		wireEvent(watch.WatchAdded, cm(t, "a", "w", 6)),
		wireEvent(watch.WatchModified, cm(t, "a", "y", 7, "app=db")), // y existed before 4
		wireEvent(watch.WatchDeleted, cm(t, "a", "w", 8)),
	)
	fx.send(watch.WatchModified, cm(t, "a", "x", 11, "app=web"))
	fx.watch("/api/v1/configmaps?watch=1&resourceVersion=4").expect("ADDED x@5", "ADDED w@6", "MODIFIED y@7", "DELETED w@8", "MODIFIED x@11")
	fx.watch("/api/v1/namespaces/a/configmaps?watch=1&resourceVersion=6").expect("MODIFIED y@7", "DELETED w@8", "MODIFIED x@11")

	selected := fx.watch("/api/v1/configmaps?watch=1&resourceVersion=4&labelSelector=app%3Dweb")
	if ev := selected.next(); ev.String() != "ERROR 410 Expired" || !strings.Contains(string(ev.Object), "too old resource version: 4 (7)") {
		t.Errorf("a selected watch across a change of unknown origin = %s %s, want 410 naming 7", ev, ev.Object)
	}
	fx.watch("/api/v1/configmaps?watch=1&resourceVersion=7&labelSelector=app%3Dweb").expect("MODIFIED x@11")

	fx.serverHistoryFrom(3)
	if ev := fx.watch("/api/v1/configmaps?watch=1&resourceVersion=2").next(); ev.String() != "ERROR 410 Expired" ||
		!strings.Contains(string(ev.Object), "too old resource version: 2 (4)") {
		t.Errorf("a watch from before the server's history = %s %s, want 410 naming the oldest the daemon holds, 4", ev, ev.Object)
	}
}

// TestExactListInHistory: an exact LIST at any resourceVersion the history
// reaches (the daemon's own, or the server's before its first list) shows
// the state then; before what either holds, it is 410.
func TestExactListInHistory(t *testing.T) {
	fx := newFixture(t, 16, cm(t, "a", "x", 5), cm(t, "a", "y", 7))
	fx.serverPast(
		wireEvent(watch.WatchAdded, cm(t, "a", "w", 4)),
		wireEvent(watch.WatchAdded, cm(t, "a", "x", 5)),
		wireEvent(watch.WatchDeleted, cm(t, "a", "w", 6)),
		wireEvent(watch.WatchAdded, cm(t, "a", "y", 7)),
	)
	fx.send(watch.WatchModified, cm(t, "a", "x", 11))
	fx.send(watch.WatchDeleted, cm(t, "a", "y", 12))
	// Oldest first: the first backfill (from 3) reads every change the
	// others need, w's creation among them, so that its deletion at 6 can
	// be undone (a deletion alone does not say w's version before it).
	for _, tc := range []struct{ rv, want string }{
		{"3", ""}, {"5", "w@4 x@5"}, {"6", "x@5"}, {"7", "x@5 y@7"}, {"10", "x@5 y@7"}, {"11", "x@11 y@7"}, {"12", "x@11"},
	} {
		code, body := fx.get("/api/v1/configmaps?resourceVersionMatch=Exact&resourceVersion=" + tc.rv)
		var items []string
		gjson.Get(body, "items").ForEach(func(_, o gjson.Result) bool {
			items = append(items, o.Get("metadata.name").Str+"@"+o.Get("metadata.resourceVersion").Str)
			return true
		})
		if code != 200 || strings.Join(items, " ") != tc.want || gjson.Get(body, "metadata.resourceVersion").Str != tc.rv {
			t.Errorf("Exact %s = %d %s, want %q", tc.rv, code, body, tc.want)
		}
	}
	fx.serverHistoryFrom(3)
	if code, body := fx.get("/api/v1/configmaps?resourceVersionMatch=Exact&resourceVersion=2"); code != 410 || !strings.Contains(body, "too old") {
		t.Errorf("Exact 2 = %d %s, want 410", code, body)
	}
}

// TestTooOldNamesOldest: the 410 of a watch beyond the history names, in
// parentheses, the oldest resourceVersion a watch may resume from, as the
// API server's does (not the current one).
func TestTooOldNamesOldest(t *testing.T) {
	fx := newFixture(t, 2, cm(t, "a", "x", 5))
	fx.serverHistoryFrom(10)
	for rv := 11; rv <= 14; rv++ {
		fx.send(watch.WatchModified, cm(t, "a", "x", rv))
	}
	ev := fx.watch("/api/v1/configmaps?watch=1&resourceVersion=11").next()
	if ev.String() != "ERROR 410 Expired" || gjson.GetBytes(ev.Object, "message").Str != "too old resource version: 11 (12)" {
		t.Errorf("watch from 11 with the changes after 12 kept = %s %s", ev, ev.Object)
	}
}

// recordedHistory is a daemon's history on disk (Options.History) that
// holds changes from oldest on.
type recordedHistory struct {
	oldest  uint64
	changes []store.Change[*object.Object]
}

func (h *recordedHistory) StateAt(context.Context, kube.Resource, string, string) ([]*object.Object, error) {
	return nil, store.ErrTooOld
}

func (h *recordedHistory) Changes(_ context.Context, _ kube.Resource, from, to string, _ bool) ([]store.Change[*object.Object], error) {
	f, _ := store.ParseRV(from)
	t, _ := store.ParseRV(to)
	if f < h.oldest {
		return nil, fmt.Errorf("%w: the history starts at %d", store.ErrTooOld, h.oldest)
	}
	var out []store.Change[*object.Object]
	for _, ch := range h.changes {
		if rv, _ := store.ParseRV(ch.ResourceVersion); rv > f && rv <= t {
			out = append(out, ch)
		}
	}
	return out, nil
}

func applied(o, old *object.Object) store.Change[*object.Object] {
	return store.Change[*object.Object]{Type: store.Applied, Key: store.KeyOf(o), Object: o, Old: old, HasOld: old != nil, ResourceVersion: o.ResourceVersion}
}

// TestWatchFromHistory: a WATCH from a resourceVersion that neither the
// store nor the API server holds (a client that outlived the daemon's
// restart) is answered from the daemon's history: its changes up to the
// store's first list, then the store's, without a relist; before the
// history too, it is 410.
func TestWatchFromHistory(t *testing.T) {
	x5, w6, y6, y7 := cm(t, "a", "x", 5, "app=web"), cm(t, "b", "w", 6), cm(t, "a", "y", 6, "app=web"), cm(t, "a", "y", 7, "app=db")
	rec := &recordedHistory{oldest: 3, changes: []store.Change[*object.Object]{
		applied(x5, nil), applied(w6, nil), applied(y6, nil), applied(y7, y6),
		{Type: store.Deleted, Key: store.KeyOf(w6), Object: w6, ResourceVersion: "8"},
	}}
	fx := newFixtureOpts(t, 16, Options{BookmarkInterval: time.Hour, History: rec}, x5, y7)
	fx.serverHistoryFrom(10) // the API server holds nothing before the store's first list
	fx.send(watch.WatchModified, cm(t, "a", "x", 11, "app=web"))

	fx.watch("/api/v1/configmaps?watch=1&resourceVersion=4").expect("ADDED x@5", "ADDED w@6", "ADDED y@6", "MODIFIED y@7", "DELETED w@8", "MODIFIED x@11")
	fx.watch("/api/v1/namespaces/a/configmaps?watch=1&resourceVersion=6").expect("MODIFIED y@7", "MODIFIED x@11")
	fx.watch("/api/v1/configmaps?watch=1&resourceVersion=5&labelSelector=app%3Dweb").expect("ADDED y@6", "DELETED y@7", "MODIFIED x@11")
	if ev := fx.watch("/api/v1/configmaps?watch=1&resourceVersion=2").next(); ev.String() != "ERROR 410 Expired" {
		t.Errorf("a watch from before the history = %s %s, want 410", ev, ev.Object)
	}
}
