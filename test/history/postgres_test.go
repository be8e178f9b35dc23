package history

import (
	"regexp"
	"strings"
	"testing"
)

// TestPostgres records to a PostgreSQL database instead of a file: the
// daemon says where (the URL, without a password), history and get --at
// find it through the running daemon, and a daemon restarted on it starts
// warm, each change made while it was away at its own resourceVersion.
func TestPostgres(t *testing.T) {
	e := newEnv(t)
	db := pg.Database(t)
	p := e.serve("configmaps", "--record", "--history-db", db)
	p.WaitErrLine(`^Recording to ` + regexp.QuoteMeta(db) + ` \(kept 168h0m0s\)$`)
	e.createCM("kept", nil, "k", "1")
	changed := e.createCM("changed", nil, "k", "1")
	gone := e.createCM("gone", nil, "k", "1")
	e.recorded("gone", gone.ResourceVersion) // history reads the daemon's database
	stopServe(t, p)

	edited := e.updateCM("changed", "editor", "k", "2")
	e.deleteCM("gone")
	added := e.createCM("added", nil, "k", "1")
	p = e.serve("configmaps", "--record", "--history-db", db)
	e.recorded("added", added.ResourceVersion)
	p.WaitErrLine(`^Restored from the history: configmaps at resourceVersion \d+, namespaces at resourceVersion \d+; resuming their watches$`)
	e.checkOps(map[string][]string{"kept": {"ADDED"}, "changed": {"ADDED", "MODIFIED"}, "gone": {"ADDED", "DELETED"}, "added": {"ADDED"}})
	if out := e.recorded("changed", edited.ResourceVersion+" "); !strings.Contains(out, "editor") {
		t.Errorf("history of changed:\n%s", out)
	}
	cols := "custom-columns=NAME:.metadata.name,K:.data.k"
	for rv, want := range map[string]string{
		changed.ResourceVersion: "NAME      K\nchanged   1\nkept      1\n",
		edited.ResourceVersion:  "NAME      K\nchanged   2\ngone      1\nkept      1\n",
	} {
		if got := e.mustRun("get", "cm", "-n", e.ns, "--at", rv, "-o", cols, "--history-db", db); got != want {
			t.Errorf("get --at %s:\n%s\nwant:\n%s", rv, got, want)
		}
	}
	e.servesWhatServerLists(p)
}
