package e2e

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite test/e2e/testdata/*.golden from the output")

// The print-flag tests run our streams and kubectl's `get -w` side by side
// on the same objects and the same changes, one change at a time (each
// waits until every printStream has printed the last), so that every printStream sees
// every event in its own flush, as kubectl prints them.

// printStream is one running watch and how to read one event's worth of its
// output.
type printStream struct {
	name  string
	p     *proc
	event func(p *proc) []string // reads the lines of one event
	lines []string               // everything read so far
}

// oneLinePerEvent reads one line per event.
func oneLinePerEvent(p *proc) []string { return []string{p.Next()} }

// untilClosingBrace reads the lines of one kyaml document, "---" to "}".
func untilClosingBrace(p *proc) []string {
	var lines []string
	for {
		l := p.Next()
		lines = append(lines, l)
		if l == "}" {
			return lines
		}
	}
}

// linesPerEvent reads n lines per event.
func linesPerEvent(n int) func(p *proc) []string {
	return func(p *proc) []string {
		lines := make([]string, n)
		for i := range lines {
			lines[i] = p.Next()
		}
		return lines
	}
}

// read reads n events' worth of lines of every printStream.
func readEvents(streams []*printStream, n int) {
	for _, s := range streams {
		for range n {
			s.lines = append(s.lines, s.event(s.p)...)
		}
	}
}

// readHeaders reads one line (a table's header) of every printStream that has one.
func readHeaders(streams []*printStream, has func(*printStream) bool) {
	for _, s := range streams {
		if has(s) {
			s.lines = append(s.lines, s.p.Next())
		}
	}
}

// printChanges is what every print-flag test does to its namespace: two
// labelled config maps exist at start, then, one at a time: a changes, a
// config map with a longer name is created (columns widen), bb is deleted.
type printChanges struct {
	t  *testing.T
	cs kubernetes.Interface
	ns string
}

// printChangesEvents are the events the changes make, initial state included:
// ADDED a, ADDED bb, MODIFIED a, ADDED a-much-longer-name, DELETED bb.
var printChangesEvents = []string{"ADDED", "ADDED", "MODIFIED", "ADDED", "DELETED"}

// printFlagsSelector selects the change set's objects: not kube-root-ca.crt.
const printFlagsSelector = "set=printflags"

func newPrintChanges(t *testing.T, cp *controlplane.ControlPlane) *printChanges {
	cs := admin(t, cp)
	ns := namespace(t, cs)
	createCM(t, cs, ns, "a", map[string]string{"set": "printflags", "app": "web", "example.com/tier": "front"}, "k", "v")
	createCM(t, cs, ns, "bb", map[string]string{"set": "printflags", "app": "db"})
	return &printChanges{t: t, cs: cs, ns: ns}
}

// run prints the initial state of every printStream (after a header for those
// that have one), then makes the changes one at a time, each read from
// every printStream before the next.
func (c *printChanges) run(streams []*printStream, header func(*printStream) bool) {
	readHeaders(streams, header)
	readEvents(streams, 2)
	updateCM(c.t, c.cs, c.ns, "a", "k", "changed")
	readEvents(streams, 1)
	createCM(c.t, c.cs, c.ns, "a-much-longer-name", map[string]string{"set": "printflags", "app": "web"})
	readEvents(streams, 1)
	deleteCM(c.t, c.cs, c.ns, "bb")
	readEvents(streams, 1)
}

// ageCell is an AGE cell and the padding after it: ages tick between
// streams started a moment apart, and a padded AGE ("9s" or "10s") is
// always as wide (under a minute: at most 3 characters, padded to 6).
var ageCell = regexp.MustCompile(`\b[0-9]+[smhd]([0-9]+[smh])?( +|$)`)

// blankAges replaces every AGE cell of a table row with <age>.
func blankAges(line string) string {
	return ageCell.ReplaceAllStringFunc(line, func(m string) string {
		if strings.HasSuffix(m, " ") {
			return "<age>   "
		}
		return "<age>"
	})
}

// blankAgesOfLines is blankAges on every line.
func blankAgesOfLines(lines []string) string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = blankAges(l)
	}
	return strings.Join(out, "\n")
}

// asApplied is kubectl's event type as we print it: ADDED and MODIFIED are
// both APPLIED.
func asApplied(t string) string {
	if t == "ADDED" || t == "MODIFIED" {
		return "APPLIED"
	}
	return t
}

// afterFirstCell is a table row without its first cell (EVENT) and the
// padding after it.
func afterFirstCell(line string) string {
	_, rest, _ := strings.Cut(line, " ")
	return blankAges(strings.TrimLeft(rest, " "))
}

// TestWatchTableMatchesKubectlGetWatch: `watch` prints the table `kubectl get
// -w` prints, for the same objects and changes, with and without wide,
// --show-labels, -L and --show-kind.
//
// Identical, byte for byte: every line after the EVENT cell (headers, cells,
// padding and how columns widen when a longer name comes), AGE cells aside,
// which tick.
// Different by design: our EVENT column is always there (kubectl has it
// only with --output-watch-events) and says APPLIED for kubectl's ADDED and
// MODIFIED, so its width differs too.
func TestWatchTableMatchesKubectlGetWatch(t *testing.T) {
	cp := cluster.Get(t)
	c := newPrintChanges(t, cp)
	variants := [][]string{
		nil,
		{"--show-labels", "-L", "app,example.com/tier", "-L", "absent"},
		{"-o", "wide", "--show-kind"},
	}
	var ours, theirs, theirsWithEvents []*printStream
	for _, v := range variants {
		args := append([]string{"cm", "-n", c.ns, "-l", printFlagsSelector}, v...)
		name := strings.Join(v, " ")
		ours = append(ours, &printStream{name: "watch " + name, p: start(t, cp, append([]string{"watch"}, args...)...), event: oneLinePerEvent})
		theirs = append(theirs, &printStream{name: "get -w " + name, p: startKubectl(t, cp, append([]string{"get", "-w"}, args...)...), event: oneLinePerEvent})
		theirsWithEvents = append(theirsWithEvents, &printStream{name: "get -w --output-watch-events " + name,
			p: startKubectl(t, cp, append([]string{"get", "-w", "--output-watch-events"}, args...)...), event: oneLinePerEvent})
	}
	all := append(append(append([]*printStream{}, ours...), theirs...), theirsWithEvents...)
	c.run(all, func(*printStream) bool { return true })

	for i := range variants {
		o, k, ke := ours[i], theirs[i], theirsWithEvents[i]
		for j := range o.lines {
			if got, want := afterFirstCell(o.lines[j]), blankAges(k.lines[j]); got != want {
				t.Errorf("%s, line %d after EVENT:\n got %q\nwant %q (%s)", o.name, j, got, want, k.name)
			}
			if got, want := afterFirstCell(o.lines[j]), afterFirstCell(ke.lines[j]); got != want {
				t.Errorf("%s, line %d after EVENT:\n got %q\nwant %q (%s)", o.name, j, got, want, ke.name)
			}
			want := "EVENT"
			if j > 0 {
				want = asApplied(printChangesEvents[j-1])
			}
			if got := strings.Fields(o.lines[j])[0]; got != want {
				t.Errorf("%s, line %d: EVENT %q, want %q", o.name, j, got, want)
			}
			if got, kubectl := strings.Fields(o.lines[j])[0], strings.Fields(ke.lines[j])[0]; got != asApplied(kubectl) {
				t.Errorf("%s, line %d: EVENT %q where kubectl says %q", o.name, j, got, kubectl)
			}
		}
		if t.Failed() {
			t.Logf("%s:\n%s\n%s:\n%s", o.name, strings.Join(o.lines, "\n"), ke.name, strings.Join(ke.lines, "\n"))
		}
	}
}

// TestWatchEventFormatsMatchKubectl: with --output-watch-events, templates
// and custom columns see {type, object} as kubectl's do.
//
// Identical: every line, once kubectl's ADDED and MODIFIED read APPLIED;
// custom columns compared cell by cell (the EVENT column is as wide as its
// longest type, APPLIED or MODIFIED).
// Different by design: -o name adds the event type ("configmap/bb
// deleted"), which kubectl's -o name drops even with --output-watch-events.
func TestWatchEventFormatsMatchKubectl(t *testing.T) {
	cp := cluster.Get(t)
	c := newPrintChanges(t, cp)
	formats := []string{
		"name",
		`jsonpath={.type} {.object.kind}/{.object.metadata.name} {.object.data.k}{"\n"}`,
		`go-template={{.type}} {{.object.metadata.name}} {{index .object.metadata.labels "app"}}{{"\n"}}`,
		"custom-columns=EVENT:.type,NAME:.object.metadata.name,APP:.object.metadata.labels.app",
	}
	var ours, theirs []*printStream
	for _, f := range formats {
		args := []string{"cm", "-n", c.ns, "-l", printFlagsSelector, "--output-watch-events", "-o", f}
		ours = append(ours, &printStream{name: "watch -o " + f, p: start(t, cp, append([]string{"watch"}, args...)...), event: oneLinePerEvent})
		theirs = append(theirs, &printStream{name: "kubectl get -w -o " + f, p: startKubectl(t, cp, append([]string{"get", "-w"}, args...)...), event: oneLinePerEvent})
	}
	c.run(append(append([]*printStream{}, ours...), theirs...), func(s *printStream) bool { return strings.Contains(s.name, "custom-columns") })

	toApplied := strings.NewReplacer("ADDED", "APPLIED", "MODIFIED", "APPLIED")
	for i, f := range formats {
		o, k := ours[i], theirs[i]
		for j := range o.lines {
			got, want := o.lines[j], toApplied.Replace(k.lines[j])
			switch {
			case f == "name":
				want = k.lines[j] + " " + strings.ToLower(asApplied(printChangesEvents[j]))
			case strings.HasPrefix(f, "custom-columns"):
				got, want = strings.Join(strings.Fields(got), " "), strings.Join(strings.Fields(want), " ")
			}
			if got != want {
				t.Errorf("-o %s, line %d:\n got %q\nwant %q", f, j, got, want)
			}
		}
	}
}

// TestWatchNewPrintFlagsMatchKubectl: the formats `watch` took over from
// kubectl's get print flags print what `kubectl get -w` prints with them.
//
// Identical: every line of -o jsonpath-as-json, -o template, --template
// without -o, -o jsonpath with --template.
// kyaml: ours carries the event, as json and yaml do; it equals kubectl's
// --output-watch-events -o kyaml once ADDED and MODIFIED read APPLIED, with
// managedFields (see below).
func TestWatchNewPrintFlagsMatchKubectl(t *testing.T) {
	cp := cluster.Get(t)
	c := newPrintChanges(t, cp)
	type variant struct {
		flags   []string
		kubectl []string // kubectl's flags, when not the same
		event   func(*proc) []string
	}
	variants := []variant{
		{flags: []string{"-o", "jsonpath-as-json={.metadata.name}"}, event: linesPerEvent(3)},
		{flags: []string{"-o", `template={{.metadata.name}}{{"\n"}}`}, event: oneLinePerEvent},
		{flags: []string{"--template", `{{.metadata.name}} {{.metadata.resourceVersion}}{{"\n"}}`}, event: oneLinePerEvent},
		{flags: []string{"-o", "jsonpath", "--template", `{.metadata.name}{"\n"}`}, event: oneLinePerEvent},
		// kubectl's kyaml keeps managedFields in watch events even without
		// --show-managed-fields (its OmitManagedFieldsPrinter does not look
		// inside a WatchEvent); ours drops them unless asked, as for json and
		// yaml, so ours is asked here and checked without it below.
		{flags: []string{"-o", "kyaml", "--show-managed-fields"}, kubectl: []string{"-o", "kyaml", "--output-watch-events"}, event: untilClosingBrace},
		{flags: []string{"-o", "kyaml"}, kubectl: []string{"-o", "kyaml", "--output-watch-events"}, event: untilClosingBrace},
	}
	var ours, theirs []*printStream
	for _, v := range variants {
		args := []string{"cm", "-n", c.ns, "-l", printFlagsSelector}
		kubectlFlags := v.kubectl
		if kubectlFlags == nil {
			kubectlFlags = v.flags
		}
		ours = append(ours, &printStream{name: "watch " + strings.Join(v.flags, " "), p: start(t, cp, append(append([]string{"watch"}, args...), v.flags...)...), event: v.event})
		theirs = append(theirs, &printStream{name: "kubectl get -w " + strings.Join(kubectlFlags, " "), p: startKubectl(t, cp, append(append([]string{"get", "-w"}, args...), kubectlFlags...)...), event: v.event})
	}
	c.run(append(append([]*printStream{}, ours...), theirs...), func(*printStream) bool { return false })

	toApplied := strings.NewReplacer(`type: "ADDED"`, `type: "APPLIED"`, `type: "MODIFIED"`, `type: "APPLIED"`)
	for i := range variants {
		got, want := strings.Join(ours[i].lines, "\n"), toApplied.Replace(strings.Join(theirs[i].lines, "\n"))
		if i == len(variants)-1 { // -o kyaml without --show-managed-fields
			if strings.Contains(got, "managedFields") {
				t.Errorf("%s keeps managedFields:\n%s", ours[i].name, got)
			}
			continue
		}
		if got != want {
			t.Errorf("%s:\n%s\nwant (%s):\n%s", ours[i].name, got, theirs[i].name, want)
		}
	}

}

// TestPrintFlagErrorsMatchKubectl: bad print flags fail as kubectl get -w
// fails on them: the same message, one `error: ...` line, a non-zero exit.
func TestPrintFlagErrorsMatchKubectl(t *testing.T) {
	cp := cluster.Get(t)
	for _, flags := range [][]string{
		{"-o", "x"},
		{"-o", "jsonpath"},
		{"-o", "jsonpath={.a"},
		{"-o", "go-template={{.a"},
		{"--template", "{{.a"},
		{"-o", "custom-columns=A"},
		{"-o", "jsonpath-file=/nonexistent"},
	} {
		t.Run(strings.Join(flags, " "), func(t *testing.T) {
			_, stderr, code := runOnce(t, nil, append([]string{"watch", "cm", "--kubeconfig", cp.AdminKubeconfig()}, flags...)...)
			_, kubectlErr, kubectlCode := kubectl(t, cp.AdminKubeconfig(), append([]string{"get", "cm", "-w"}, flags...)...)
			if kubectlCode == 0 {
				t.Fatalf("kubectl get -w %v exited 0", flags)
			}
			assertOneLineError(t, stderr, code, strings.TrimPrefix(strings.TrimSpace(kubectlErr), "error: "))
		})
	}
}

// TestGetWatchIsWatch: `get -w` is `watch` with get's flags: the same
// lines; --watch-only prints changes only; --output-watch-events without
// -w fails as kubectl's does.
func TestGetWatchIsWatch(t *testing.T) {
	cp := cluster.Get(t)
	c := newPrintChanges(t, cp)
	args := []string{"cm", "-n", c.ns, "-l", printFlagsSelector}
	streams := []*printStream{
		{name: "watch", p: start(t, cp, append([]string{"watch"}, args...)...), event: oneLinePerEvent},
		{name: "get -w", p: start(t, cp, append([]string{"get", "-w"}, args...)...), event: oneLinePerEvent},
		{name: "get --watch -o name", p: start(t, cp, append([]string{"get", "--watch", "-o", "name", "--output-watch-events"}, args...)...), event: oneLinePerEvent},
		{name: "watch -o name", p: start(t, cp, append([]string{"watch", "-o", "name", "--output-watch-events"}, args...)...), event: oneLinePerEvent},
	}
	c.run(streams, func(s *printStream) bool { return !strings.Contains(s.name, "name") })
	for i := 0; i < len(streams); i += 2 {
		w, g := streams[i], streams[i+1]
		if got, want := blankAgesOfLines(g.lines), blankAgesOfLines(w.lines); got != want {
			t.Errorf("%s:\n%s\nwant (%s):\n%s", g.name, got, w.name, want)
		}
	}

	// --watch-only: what happens from now on only.
	p := start(t, cp, append([]string{"get", "--watch-only", "-o", "name", "--output-watch-events"}, args...)...)
	line := p.UntilLine(func(i int) { updateCM(t, c.cs, c.ns, "a", "k", "again-"+string(rune('a'+i))) })
	if line != "configmap/a applied" {
		t.Errorf("get --watch-only printed %q first, want configmap/a applied", line)
	}

	// --output-watch-events without a watch: kubectl's error.
	_, stderr, code := runOnce(t, nil, append([]string{"get", "--output-watch-events", "--kubeconfig", cp.AdminKubeconfig()}, args...)...)
	_, kubectlErr, kubectlCode := kubectl(t, cp.AdminKubeconfig(), append([]string{"get", "--output-watch-events"}, args...)...)
	if kubectlCode == 0 {
		t.Errorf("kubectl get --output-watch-events without -w exited 0")
	}
	assertOneLineError(t, stderr, code, strings.TrimPrefix(strings.TrimSpace(kubectlErr), "error: "))
}

// TestWatchMultiKindLayout: a printStream of several kinds keeps the order the
// kinds were given in (secrets before config maps here, though their lists
// may end in any order) and prints one header for all kinds, then one line
// per event: EVENT, kind/name, AGE, then the kind's other columns as
// Name=value pairs (testdata/watch-multi-kind.golden, AGE blanked). The
// first kind's name is the longest of the initial lists, so the layout does
// not depend on whether the two lists are printed in one flush or two.
func TestWatchMultiKindLayout(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	ctx := context.Background()
	labels := map[string]string{"set": "printflags"}
	createSecret := func(name string) {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels}, StringData: map[string]string{"k": "v"}}
		if _, err := cs.CoreV1().Secrets(ns).Create(ctx, s, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	createSecret("database-credentials")
	createCM(t, cs, ns, "settings", labels, "a", "1", "b", "2")
	createCM(t, cs, ns, "feature-flags", labels)

	p := start(t, cp, "watch", "secrets,configmaps", "-n", ns, "-l", printFlagsSelector)
	var lines []string
	next := func(n int) {
		for range n {
			lines = append(lines, blankAges(p.Next()))
		}
	}
	next(1 + 1 + 2) // header, the secret, the two config maps
	updateCM(t, cs, ns, "settings", "c", "3")
	next(1)
	createSecret("a-token-with-a-longer-name")
	next(1)
	deleteCM(t, cs, ns, "feature-flags")
	next(1)
	if err := cs.CoreV1().Secrets(ns).Delete(ctx, "database-credentials", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	next(1)
	checkE2EGolden(t, "watch-multi-kind.golden", strings.Join(lines, "\n")+"\n")
}

// checkE2EGolden compares got with testdata/name, or rewrites it under
// -update-golden.
func checkE2EGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *updateGolden {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update-golden to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (-update-golden rewrites it)\n--- got\n%s--- want\n%s", path, got, want)
	}
}

// TestVersionOutput: `version -o yaml` is accepted, as kubectl's is, and
// says what -o json says.
func TestVersionOutput(t *testing.T) {
	cp := cluster.Get(t)
	if _, stderr, code := kubectl(t, cp.AdminKubeconfig(), "version", "--client", "-o", "yaml"); code != 0 {
		t.Fatalf("kubectl version -o yaml: exit %d: %s", code, stderr)
	}
	yamlOut, stderr, code := runOnce(t, nil, "version", "-o", "yaml")
	if code != 0 {
		t.Fatalf("version -o yaml: exit %d: %s", code, stderr)
	}
	jsonOut, _, _ := runOnce(t, nil, "version", "-o", "json")
	var fromYAML, fromJSON map[string]any
	if err := yaml.Unmarshal([]byte(yamlOut), &fromYAML); err != nil {
		t.Fatalf("version -o yaml is not YAML: %v\n%s", err, yamlOut)
	}
	if err := json.Unmarshal([]byte(jsonOut), &fromJSON); err != nil {
		t.Fatalf("version -o json is not JSON: %v\n%s", err, jsonOut)
	}
	if fromYAML["version"] == nil || fromYAML["goVersion"] == nil {
		t.Errorf("version -o yaml lacks version or goVersion:\n%s", yamlOut)
	}
	if a, b := yamlOut, jsonOut; len(fromYAML) != len(fromJSON) {
		t.Errorf("-o yaml and -o json differ:\n%s\n%s", a, b)
	}
	for k, v := range fromJSON {
		if fromYAML[k] != v {
			t.Errorf("%s: yaml says %v, json %v", k, fromYAML[k], v)
		}
	}
	_, stderr, code = runOnce(t, nil, "version", "-o", "x")
	assertOneLineError(t, stderr, code, `--output must be 'yaml' or 'json', not "x"`)
}
