package multicluster

import (
	"slices"
	"strings"
	"testing"
)

// TestHistoryContexts: history of several contexts is each context's
// revisions of the object in one table, CONTEXT first, the contexts in
// the order given (--diff: each header after its context); a context
// whose history holds nothing is one line on stderr while the others
// print, and history exits 1; one context prints as before, without the
// column.
func TestHistoryContexts(t *testing.T) {
	cs, ns, kc, east, west := recordSettings(t)
	changed := updateCM(t, cs["west"], ns, "settings", "k", "2")
	recorded(t, kc, "west", ns, changed.ResourceVersion)

	out, errOut, code := run(t, kc, "history", "cm/settings", "--context", "west,east")
	want := []string{"CONTEXT REVISION OPERATION", "west " + west.ResourceVersion + " ADDED", "west " + changed.ResourceVersion + " MODIFIED", "east " + east.ResourceVersion + " ADDED"}
	if got := historyRows(out, 2); code != 0 || errOut != "" || !slices.Equal(got, want) {
		t.Errorf("history --context west,east: exit %d, stderr %q\n%s\nrows %q, want %q", code, errOut, out, got, want)
	}

	out, errOut, code = run(t, kc, "history", "cm/settings", "--context", "north,east")
	want = []string{"CONTEXT REVISION OPERATION", "east " + east.ResourceVersion + " ADDED"}
	if got := historyRows(out, 2); code != 1 || !slices.Equal(got, want) ||
		!strings.HasPrefix(errOut, "context north: error: ") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("history --context north,east (north recorded nothing): exit %d, stderr %q\n%s\nrows %q, want %q", code, errOut, out, got, want)
	}

	out, errOut, code = run(t, kc, "history", "cm/settings", "--context", "east,west", "--diff")
	var headers []string
	for _, line := range strings.Split(out, "\n") {
		if ctx, rest, ok := strings.Cut(line, ": "); ok && (ctx == "east" || ctx == "west") {
			headers = append(headers, ctx+": "+strings.Join(strings.Fields(rest)[:4], " "))
		}
	}
	want = []string{
		"east: ADDED configmaps/settings (resourceVersion " + east.ResourceVersion + ")",
		"west: ADDED configmaps/settings (resourceVersion " + west.ResourceVersion + ")",
		"west: MODIFIED configmaps/settings (resourceVersion " + changed.ResourceVersion + ")",
	}
	if code != 0 || errOut != "" || !slices.Equal(headers, want) || !strings.Contains(out, "-  k: \"3\"\n+  k: \"2\"\n") {
		t.Errorf("history --context east,west --diff: exit %d, stderr %q\n%s\nheaders %q, want %q", code, errOut, out, headers, want)
	}

	out, _, code = run(t, kc, "history", "cm/settings", "--context", "east")
	if want := []string{"REVISION OPERATION", east.ResourceVersion + " ADDED"}; code != 0 || !slices.Equal(historyRows(out, 1), want) {
		t.Errorf("history --context east: exit %d\n%s\nwant rows %q", code, out, want)
	}

	_, errOut, code = run(t, kc, "history", "cm/settings", "--context", "east,west", "--revision", east.ResourceVersion)
	if code == 0 || errOut != "error: --revision is a resourceVersion of one cluster: give one --context\n" {
		t.Errorf("--revision with several contexts: exit %d, stderr %q", code, errOut)
	}
}

// historyRows are a history table's lines, each with its column time
// (which ticks) and those after it (MANAGER: the test's client) left out.
func historyRows(table string, time int) []string {
	var out []string
	for _, line := range strings.Split(strings.TrimRight(table, "\n"), "\n") {
		fields := strings.Fields(line)
		if len(fields) > time+1 {
			fields = slices.Delete(fields, time, time+1)
		}
		out = append(out, strings.Join(fields[:min(len(fields), time+1)], " "))
	}
	return out
}
