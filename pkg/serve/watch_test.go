package serve

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// TestWatchFromNow: resourceVersion "" or "0" starts with the state as
// ADDED, in key order, then every change as it comes.
func TestWatchFromNow(t *testing.T) {
	fx := newFixture(t, 16, cm(t, "a", "y", 5), cm(t, "a", "x", 6))
	for _, path := range []string{"/api/v1/configmaps?watch=true", "/api/v1/watch/namespaces/a/configmaps?resourceVersion=0"} {
		wc := fx.watch(path)
		if wc.code != 200 {
			t.Fatalf("%s = %d", path, wc.code)
		}
		wc.expect("ADDED x@6", "ADDED y@5")
		defer func() {
			wc.expect("MODIFIED x@11", "DELETED y@12")
		}()
	}
	fx.send(watch.WatchModified, cm(t, "a", "x", 11))
	fx.send(watch.WatchDeleted, cm(t, "a", "y", 12))
}

// TestWatchResume: a watch from resourceVersion N replays the changes after
// N from the history; one older than the history gets the API server's
// ERROR event 410 Expired.
func TestWatchResume(t *testing.T) {
	fx := newFixture(t, 2, cm(t, "a", "x", 5))
	fx.send(watch.WatchModified, cm(t, "a", "x", 11))
	fx.send(watch.WatchAdded, cm(t, "a", "y", 12))
	fx.watch("/api/v1/configmaps?watch=1&resourceVersion=11").expect("ADDED y@12")
	fx.watch("/api/v1/configmaps?watch=1&resourceVersion=10").expect("MODIFIED x@11", "ADDED y@12")
	fx.send(watch.WatchDeleted, cm(t, "a", "x", 13)) // the history of 2 no longer holds 11
	wc := fx.watch("/api/v1/configmaps?watch=1&resourceVersion=10")
	if wc.code != 200 {
		t.Errorf("a too old watch = %d, want 200 then an ERROR event", wc.code)
	}
	wc.expect("ERROR 410 Expired", "END")
	fx.watch("/api/v1/configmaps?watch=1&resourceVersion=11").expect("ADDED y@12", "DELETED x@13")
	if wc := fx.watch("/api/v1/configmaps?watch=1&resourceVersion=abc"); wc.code != 400 {
		t.Errorf("a bad resourceVersion = %d, want 400", wc.code)
	}
}

// TestWatchInitialEvents: a streaming list (sendInitialEvents) sends the
// state, then the bookmark that ends it, then the changes.
func TestWatchInitialEvents(t *testing.T) {
	fx := newFixture(t, 16, cm(t, "a", "x", 5))
	wc := fx.watch("/api/v1/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")
	wc.expect("ADDED x@5")
	ev := wc.next()
	if ev.Type != "BOOKMARK" || gjson.GetBytes(ev.Object, `metadata.annotations.k8s\.io/initial-events-end`).Str != "true" ||
		gjson.GetBytes(ev.Object, "metadata.resourceVersion").Str != "10" || gjson.GetBytes(ev.Object, "kind").Str != "ConfigMap" {
		t.Errorf("after the state: %s %s; want the initial-events-end BOOKMARK at 10", ev.Type, ev.Object)
	}
	fx.send(watch.WatchAdded, cm(t, "a", "y", 11))
	wc.expect("ADDED y@11")
	if wc := fx.watch("/api/v1/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"); wc.code != 422 {
		t.Errorf("sendInitialEvents without bookmarks = %d, want 422", wc.code)
	}
}

// TestWatchSelector: through a selector, an object that starts matching is
// ADDED and one that stops is DELETED, as the API server does.
func TestWatchSelector(t *testing.T) {
	fx := newFixture(t, 16, cm(t, "a", "x", 5, "app=web"), cm(t, "a", "y", 6, "app=db"))
	wc := fx.watch("/api/v1/namespaces/a/configmaps?watch=1&labelSelector=app%3Dweb")
	one := fx.watch("/api/v1/namespaces/a/configmaps?watch=1&fieldSelector=metadata.name%3Dy")
	wc.expect("ADDED x@5")
	one.expect("ADDED y@6")
	fx.send(watch.WatchModified, cm(t, "a", "x", 11, "app=db"))
	fx.send(watch.WatchModified, cm(t, "a", "y", 12, "app=web"))
	fx.send(watch.WatchModified, cm(t, "a", "y", 13, "app=web"))
	wc.expect("DELETED x@11", "ADDED y@12", "MODIFIED y@13")
	one.expect("MODIFIED y@12", "MODIFIED y@13")
}

// TestWatchTable: a Table watch (kubectl get -w) sends one row an event,
// the columns with the first only.
func TestWatchTable(t *testing.T) {
	fx := newFixture(t, 16, cm(t, "a", "x", 5))
	wc := fx.watch("/api/v1/configmaps?watch=1&resourceVersion=10", "Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json")
	fx.send(watch.WatchModified, cm(t, "a", "x", 11))
	fx.send(watch.WatchModified, cm(t, "a", "x", 12))
	first, second := wc.next(), wc.next()
	if gjson.GetBytes(first.Object, "columnDefinitions.#").Int() != 3 || gjson.GetBytes(first.Object, "rows.0.cells.2").Str != "60m" ||
		first.String() != "MODIFIED x@11" {
		t.Errorf("first Table event: %s", first.Object)
	}
	if gjson.GetBytes(second.Object, "columnDefinitions.#").Int() != 0 || second.String() != "MODIFIED x@12" {
		t.Errorf("second Table event: %s", second.Object)
	}
}

// TestWatchBookmarks: a watch that allows bookmarks is sent the latest
// resourceVersion; a timeout ends it cleanly.
func TestWatchBookmarks(t *testing.T) {
	fx := newFixtureWith(t, 16, time.Millisecond)
	wc := fx.watch("/api/v1/namespaces/a/configmaps?watch=1&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds=1")
	fx.send(watch.WatchAdded, cm(t, "b", "other", 11)) // another namespace moves the resourceVersion
	for {
		ev := wc.next()
		if ev.Type == "END" {
			t.Fatal("the watch ended before a bookmark at 11")
		}
		if ev.Type == "BOOKMARK" && gjson.GetBytes(ev.Object, "metadata.resourceVersion").Str == "11" {
			break
		}
		if ev.Type != "BOOKMARK" {
			t.Fatalf("%s in namespace a", ev)
		}
	}
	for ev := wc.next(); ev.Type != "END"; ev = wc.next() { // ended by timeoutSeconds
		if ev.Type != "BOOKMARK" {
			t.Fatalf("%s, want bookmarks until the end", ev)
		}
	}
}

// TestWatchFallsBehind: a watcher whose queue overflowed (store.Resync) is
// closed, so that its client relists.
func TestWatchFallsBehind(t *testing.T) {
	fx := newFixture(t, 16, cm(t, "a", "x", 5))
	sub := fx.handle.Subscribe(t.Context(), store.SubscribeOptions{Mode: store.Ordered, Limit: 1})
	defer sub.Close()
	fx.send(watch.WatchModified, cm(t, "a", "x", 11))
	fx.send(watch.WatchModified, cm(t, "a", "x", 12))
	fx.send(watch.WatchModified, cm(t, "a", "x", 13))
	rec := httptest.NewRecorder()
	c := &cached{res: configMaps}
	s := &watchStream{c: c, f: &filter{empty: true}, sub: sub, ww: &watchWriter{w: rec, ok: true, enc: &encoder{res: configMaps}}}
	if s.drain() {
		t.Errorf("drain went on after the queue overflowed; wrote %s", rec.Body)
	}
}

// TestWatchAcrossRelist: when the reflector relists (410 at the API
// server), an open watch is sent what the relist changed with
// resourceVersions that never go back (the deletions first, at the
// resourceVersion before the relist, then the objects in the order of
// theirs), then, if it allows bookmarks, a BOOKMARK at the relist's. As the
// API server after its watch cache relists, a resume from before the
// relist's resourceVersion (any one of the burst's) is 410 Expired, so that
// the client lists again; one from the bookmark's goes on with no loss and
// no ghost.
func TestWatchAcrossRelist(t *testing.T) {
	fx := newFixture(t, 16, cm(t, "a", "x", 5), cm(t, "a", "y", 6), cm(t, "a", "z", 7))
	fx.send(watch.WatchModified, cm(t, "a", "x", 11))
	bookmarks := fx.watch("/api/v1/configmaps?watch=1&resourceVersion=11&allowWatchBookmarks=true")
	plain := fx.watch("/api/v1/namespaces/a/configmaps?watch=1&resourceVersion=11")
	// In name order the relist's changes would be a@16, b@18, y@15, z gone.
	fx.relist("20", cm(t, "a", "a", 16), cm(t, "a", "b", 18), cm(t, "a", "x", 11), cm(t, "a", "y", 15))
	burst := []string{"DELETED z@11", "MODIFIED y@15", "ADDED a@16", "ADDED b@18"}
	bookmarks.expect(append(burst, "BOOKMARK @20")...)
	plain.expect(burst...)
	skipBookmarks := func(wc *watchClient) watchEvent { // a burst drained in two rounds may be followed by a second one
		ev := wc.next()
		for ev.String() == "BOOKMARK @20" {
			ev = wc.next()
		}
		return ev
	}
	for _, rv := range []string{"11", "15", "16", "18"} {
		fx.watch("/api/v1/configmaps?watch=1&resourceVersion="+rv).expect("ERROR 410 Expired", "END")
	}
	resumed := fx.watch("/api/v1/configmaps?watch=1&resourceVersion=20")
	fx.send(watch.WatchModified, cm(t, "a", "x", 21))
	if ev := skipBookmarks(bookmarks); ev.String() != "MODIFIED x@21" {
		t.Errorf("after the relist's bookmark: %s, want MODIFIED x@21", ev)
	}
	for _, wc := range []*watchClient{plain, resumed} {
		wc.expect("MODIFIED x@21")
	}
}

// TestWatchTableAgeNow: a Table watch's Age is computed when each event is
// sent, as the API server does, not when the watch began: kubectl get -w
// through a daemon printed the watch's start-time ages, and <invalid> for
// objects created after it.
func TestWatchTableAgeNow(t *testing.T) {
	fx := newFixture(t, 16, cm(t, "a", "x", 5))
	wc := fx.watch("/api/v1/configmaps?watch=1&resourceVersion=10", "Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json")
	fx.send(watch.WatchModified, cm(t, "a", "x", 11))
	if ev := wc.next(); gjson.GetBytes(ev.Object, "rows.0.cells.2").Str != "60m" {
		t.Fatalf("Age at the watch's start = %q, want 60m", gjson.GetBytes(ev.Object, "rows.0.cells.2").Str)
	}
	fx.advance(2 * time.Hour)
	fx.send(watch.WatchModified, cm(t, "a", "x", 12))
	if ev := wc.next(); gjson.GetBytes(ev.Object, "rows.0.cells.2").Str != "3h" {
		t.Errorf("Age two hours into the watch = %q, want 3h: %s", gjson.GetBytes(ev.Object, "rows.0.cells.2").Str, ev.Object)
	}
}
