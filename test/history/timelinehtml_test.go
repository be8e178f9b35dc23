package history

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestTimelineHTML: timeline --html writes one page that a real browser
// (headless chromium) draws with a lane per recorded object and its marks
// (create, spec change, delete); a click on a change's mark shows the
// revision as history --diff prints it (its line and its unified diff);
// the page sends no request but for its own file and logs no error. A
// page that cannot be written is one error line.
func TestTimelineHTML(t *testing.T) {
	b := newBrowser(t)
	e := newEnv(t)
	e.serve("configmaps", "--record")
	e.createCM("a", nil, "k", "1")
	b1 := e.createCM("b", nil, "k", "1", "keep", "x")
	e.recorded("b", b1.ResourceVersion) // the next change some milliseconds on: a cell of its own, zoomed in
	b2 := e.updateCM("b", "editor", "k", "2", "added", "yes")
	c := e.createCM("c", nil, "k", "1")
	e.recorded("c", c.ResourceVersion)
	e.deleteCM("c")
	e.recorded("c", "DELETED")
	e.recorded("b", b2.ResourceVersion)

	// The span ends seconds after the last change, not at it: zoomed in
	// about a mark at the span's very edge, the wheel would leave it.
	file := filepath.Join(t.TempDir(), "timeline.html")
	until := time.Now().Add(5 * time.Second).UTC().Format(time.RFC3339Nano)
	_, errOut, code := e.run("timeline", "configmaps", "-n", e.ns, "--since", "10m", "--until", until, "--html", file)
	if code != 0 || !strings.HasPrefix(errOut, "wrote "+file+": ") {
		t.Fatalf("timeline --html: exit %d\n%s", code, errOut)
	}
	if st, err := os.Stat(file); err != nil || st.Size() == 0 {
		t.Fatalf("the page: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "no", "such", "dir", "timeline.html")
	if _, errOut, code := e.run("timeline", "configmaps", "-n", e.ns, "--since", "10m", "--html", bad); code == 0 ||
		!strings.HasPrefix(errOut, "error: writing --html: ") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("timeline --html into a missing directory: exit %d, stderr %q; want one error line", code, errOut)
	}
	want := historyDiff(t, e.mustRun("history", "cm/b", "-n", e.ns, "--diff"), b2.ResourceVersion)

	b.open("file://"+file, `document.body.dataset.ready === 'true'`)
	lanes := eval[[]string](b, `[...document.querySelectorAll('.row.lane')].map((r) => r.dataset.name)`)
	for _, name := range []string{"a", "b", "c"} {
		if !slices.Contains(lanes, e.ns+"/"+name) {
			t.Errorf("no lane for %s/%s among %v", e.ns, name, lanes)
		}
	}
	// The marks of an object's changes, made within seconds, share a
	// cell of a 10-minute span: the wheel over the axis, where its last
	// mark is, zooms in until they have a cell each.
	lane := `.row.lane[data-name$="/c"]`
	zoomUntil(b, lane+` .mark:last-child`, `document.querySelectorAll('`+lane+` .mark').length >= 2`)
	marks := eval[[]string](b, `[...document.querySelectorAll('`+lane+` .mark')].map((m) => m.dataset.type)`)
	if !slices.Contains(marks, "create") || !slices.Contains(marks, "delete") {
		t.Errorf("zoomed in, the lane of c has marks %v, want a create and a delete", marks)
	}
	if ticks := eval[string](b, `document.getElementById('axis-track').textContent`); strings.Count(ticks, ":") < 2 {
		t.Errorf("zoomed in, the axis reads %q; want times to the second", ticks)
	}

	b.click("#zoom-fit")
	lane = `.row.lane[data-name$="/b"]`
	zoomUntil(b, lane+` .mark:last-child`, `document.querySelector('`+lane+` .mark[data-rv="`+b2.ResourceVersion+`"]') !== null`)
	b.click(`.row.lane[data-name$="/b"] .mark[data-rv="` + b2.ResourceVersion + `"]`)
	b.await(`document.getElementById('panel-diff').textContent !== ''`)
	got := eval[string](b, `document.getElementById('panel-head').textContent + '\n' + document.getElementById('panel-diff').textContent`)
	if got != want {
		t.Errorf("the panel of b's change shows\n%s\nwant what history --diff prints\n%s", got, want)
	}
	if state := eval[string](b, `document.getElementById('panel-state').textContent`); !strings.Contains(state, "added: \"yes\"") {
		t.Errorf("the object then:\n%s\nwant its data with added: \"yes\"", state)
	}

	requests, errs := b.seen()
	for _, r := range requests {
		if !strings.HasPrefix(r, "file://") && !strings.HasPrefix(r, "data:") {
			t.Errorf("the page requested %s", r)
		}
	}
	if len(errs) > 0 {
		t.Errorf("the page reported errors:\n%s", strings.Join(errs, "\n"))
	}
}

// zoomUntil turns the wheel over the axis, where the element at is, a
// notch at a time until cond (a JavaScript expression) holds.
func zoomUntil(b *browser, at, cond string) {
	b.t.Helper()
	for range 40 {
		if eval[bool](b, cond) {
			return
		}
		b.wheel("#axis-track", at, 1, -100)
	}
	b.t.Fatalf("zoomed in 40 notches (0.8 times the span each) at %s, still not %s", at, cond)
}

// historyDiff is the part of history --diff's output about the revision
// at rv: its line and its diff.
func historyDiff(t *testing.T, out, rv string) string {
	t.Helper()
	var b strings.Builder
	in := false
	for _, line := range strings.SplitAfter(out, "\n") {
		header := false
		for _, op := range []string{"ADDED ", "MODIFIED ", "DELETED ", "INITIAL "} {
			header = header || strings.HasPrefix(line, op)
		}
		if header {
			in = strings.Contains(line, "(resourceVersion "+rv+")")
		}
		if in {
			b.WriteString(line)
		}
	}
	if b.Len() == 0 {
		t.Fatalf("history --diff has no revision %s:\n%s", rv, out)
	}
	return b.String()
}
