package history

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadInputOneLine: each mistake is one `error: ...` line on stderr and
// a non-zero exit.
func TestBadInputOneLine(t *testing.T) {
	e := newEnv(t)
	text := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(text, []byte("a text file, not a history at all"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"serve", "cm", "--record", "--record-retention", "0"}, "error: invalid --record-retention 0s: want more than 0 (to keep nothing, leave --record out)"},
		{[]string{"serve", "cm", "--history-db", "x.db"}, "error: --history-db tunes --record: give --record too"},
		{[]string{"serve", "cm", "--record-max-size", "1Gi"}, "error: --record-max-size tunes --record: give --record too"},
		{[]string{"serve", "cm", "--record", "--record-max-size=-1"}, `error: invalid --record-max-size "-1": want a size in bytes, e.g. 512Mi or 2G (0: no limit)`},
		{[]string{"serve", "cm", "--record", "--record-max-size", "1Gi", "--history-db", "postgres://team@db.example/history"}, "error: --record-max-size bounds a history file; a PostgreSQL history is bounded by --record-retention"},
		{[]string{"serve", "--record", "-n", "default"}, "error: --record records every namespace: leave out -n default (or give -A)"},
		{[]string{"serve", "cm", "--record", "-n", "default"}, "error: --record records every namespace: leave out -n default (or give -A)"},
		{[]string{"get", "cm", "--at", "yesterday"}, `error: invalid --at "yesterday": want a time (2026-12-04T07:00:00Z), a duration ago (90m) or a resourceVersion`},
		{[]string{"get", "cm", "--at", "1h", "-w"}, "error: --at prints a past state: it cannot watch (watch --since replays history)"},
		{[]string{"get", "cm", "--history-db", "x.db"}, "error: --history-db is where --at reads: give --at too"},
		{[]string{"get", "cm", "--at", "1h"}, "error: no history at " + filepath.Join(e.state, "kubectl-reflect", "history")},
		{[]string{"get", "cm", "--at", "1h", "--history-db", text}, "error: " + text + " is not a kubectl-reflect history: not an SQLite database"},
		{[]string{"history", "cm/x", "--history-db", text}, "error: " + text + " is not a kubectl-reflect history: not an SQLite database"},
		{[]string{"history", "cm/x", "--revision", "abc"}, `error: invalid --revision "abc": want a resourceVersion (a number, from the REVISION column)`},
		{[]string{"history", "cm/x", "-o", "json"}, "error: -o json prints one revision's object: give --revision (the list and --diff have one format)"},
		{[]string{"history", "cm/x", "--revision", "5", "-o", "wide"}, `error: invalid -o "wide": --revision prints yaml or json`},
		{[]string{"history", "cm"}, "error: history lists one object: give KIND/NAME (or KIND NAME)"},
		{[]string{"history", "cm", "a", "b"}, "error: history lists one object: give KIND/NAME (or KIND NAME)"},
		{[]string{"history", "cm/a", "cm/b"}, "error: history lists one object: give KIND/NAME (or KIND NAME)"},
		{[]string{"watch", "cm", "--since", "yesterday"}, `error: invalid --since "yesterday": want a time (2026-12-04T07:00:00Z), a duration ago (90m) or a resourceVersion`},
		{[]string{"watch", "cm", "--history-db", "x.db"}, "error: --history-db is where --since reads: give --since too"},
		{[]string{"watch", "cm", "--since", "1h", "-l", "a=b"}, "error: --since replays kinds, in a namespace or by name: it cannot select by labels or fields"},
		{[]string{"watch", "cm", "--since", "1h"}, "error: no history at " + filepath.Join(e.state, "kubectl-reflect", "history")},
	}
	for _, tc := range tests {
		_, errOut, code := e.run(tc.args...)
		if code == 0 || !strings.HasPrefix(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q; want one line starting %q", strings.Join(tc.args, " "), code, errOut, tc.want)
		}
	}
}

// TestForeignOrDamagedFile: a daemon told to record to a file that is not
// a history, or a damaged one, says so in one line and serves anyway; a
// query says so in one line.
func TestForeignOrDamagedFile(t *testing.T) {
	e := newEnv(t)
	e.createCM("served", nil, "k", "1")
	for name, content := range map[string]string{
		"notes.txt":  "a text file, not a history at all",
		"damaged.db": "SQLite format 3\x00" + strings.Repeat("\xff garbage ", 500),
	} {
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		p := e.serve("configmaps", "--record", "--history-db", path)
		if line := p.WaitErrLine("^warning: not recording: "); !strings.Contains(line, path) {
			t.Errorf("%s: %q", name, line)
		}
		if out := e.mustRun("get", "cm", "served", "-n", e.ns, "-o", "name"); out != "configmap/served\n" {
			t.Errorf("%s: the daemon does not serve: %q", name, out)
		}
		_, errOut, code := e.run("history", "cm/served", "-n", e.ns, "--history-db", path)
		if code == 0 || !strings.HasPrefix(errOut, "error: ") || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, path) {
			t.Errorf("%s: history: exit %d, %q", name, code, errOut)
		}
		stopServe(t, p)
	}
}

// TestAtBeforeTheHistory: a time before the first write is one line
// saying where the history starts.
func TestAtBeforeTheHistory(t *testing.T) {
	e := newEnv(t)
	e.serve("configmaps", "--record")
	last := e.createCM("first", nil, "k", "1")
	e.recorded("first", last.ResourceVersion)
	_, errOut, code := e.run("get", "cm", "-n", e.ns, "--at", "2020-01-01T00:00:00Z")
	if code != 1 || !strings.HasPrefix(errOut, "error: --at 2020-01-01T00:00:00Z: the record begins at ") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("get --at before the history: exit %d, %q", code, errOut)
	}
	_, errOut, code = e.run("get", "cm", "-n", e.ns, "--at", "1")
	if code != 1 || !strings.Contains(errOut, "the record begins at ") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("get --at 1: exit %d, %q", code, errOut)
	}
}
