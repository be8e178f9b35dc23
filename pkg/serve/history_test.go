package serve

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/listwatch"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// serverPast adds events to what the API server's watch cache holds from
// before the daemon's first list (at 10).
func (fx *fixture) serverPast(events ...listwatch.WatchEvent[*object.Object]) {
	fx.f.mu.Lock()
	defer fx.f.mu.Unlock()
	fx.f.past = append(events, fx.f.past...)
}

func wireEvent(typ listwatch.WatchEventType, o *object.Object) listwatch.WatchEvent[*object.Object] {
	return listwatch.WatchEvent[*object.Object]{Type: typ, Object: o, ResourceVersion: o.ResourceVersion}
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
	fx.send(listwatch.WatchModified, cm(t, "a", "x", 11))
	fx.send(listwatch.WatchAdded, cm(t, "b", "y", 12))
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
		wireEvent(listwatch.WatchAdded, cm(t, "a", "x", 5, "app=web")),
		wireEvent(listwatch.WatchAdded, cm(t, "a", "w", 6)),
		wireEvent(listwatch.WatchModified, cm(t, "a", "y", 7, "app=db")), // y existed before 4
		wireEvent(listwatch.WatchDeleted, cm(t, "a", "w", 8)),
	)
	fx.send(listwatch.WatchModified, cm(t, "a", "x", 11, "app=web"))
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
		wireEvent(listwatch.WatchAdded, cm(t, "a", "w", 4)),
		wireEvent(listwatch.WatchAdded, cm(t, "a", "x", 5)),
		wireEvent(listwatch.WatchDeleted, cm(t, "a", "w", 6)),
		wireEvent(listwatch.WatchAdded, cm(t, "a", "y", 7)),
	)
	fx.send(listwatch.WatchModified, cm(t, "a", "x", 11))
	fx.send(listwatch.WatchDeleted, cm(t, "a", "y", 12))
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
		fx.send(listwatch.WatchModified, cm(t, "a", "x", rv))
	}
	ev := fx.watch("/api/v1/configmaps?watch=1&resourceVersion=11").next()
	if ev.String() != "ERROR 410 Expired" || gjson.GetBytes(ev.Object, "message").Str != "too old resource version: 11 (12)" {
		t.Errorf("watch from 11 with the changes after 12 kept = %s %s", ev, ev.Object)
	}
}
