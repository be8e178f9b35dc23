package docs

import (
	"k8s.io/client-go/tools/clientcmd"

	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// root is the repository's root, from this package's directory.
const root = "../.."

// pagePaths are the pages whose examples run: README.md and docs/*.md.
func pagePaths(t *testing.T) []string {
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("no docs/*.md (%v)", err)
	}
	return append([]string{filepath.Join(root, "README.md")}, docs...)
}

// TestDocs runs every page's examples, one page after the other (each in
// a fresh namespace demo), and compares what they print with what the page
// shows.
func TestDocs(t *testing.T) {
	cp := cluster.Get(t)
	for _, path := range pagePaths(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			p, err := parsePage(path, string(text))
			if err != nil {
				t.Fatal(err)
			}
			var kubeconfig string
			if p.fleet != nil {
				kubeconfig = fleetDemo(t, p.fleet, cp.Kubectl())
			} else {
				kubeconfig = demoNamespace(t, cp.AdminKubeconfig(), cp.Kubectl())
			}
			s := newSession(t, kubeconfig)
			if p.databases != nil {
				s.env = append(s.env, databases(t, p.databases)...)
			}
			if updated := runPage(t, p, s); *update && updated != string(text) {
				if err := os.WriteFile(path, []byte(updated), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// databases makes the PostgreSQL databases names (the first page that
// asks starts the server) and returns the environment that reaches them.
func databases(t *testing.T, names []string) []string {
	srv := pg.Get(t)
	for _, name := range names {
		if _, err := srv.CreateDatabase(t.Context(), name); err != nil {
			t.Fatal(err)
		}
	}
	return srv.Env()
}

// fleetDemo is the kubeconfig of the fleet names (the first page that
// asks starts it), the namespace demo created in each cluster and current
// in each context; it is deleted when the test ends, and awaited (the
// fleet's kube-controller-manager empties it), so that the next page that
// asks for the fleet makes it afresh.
func fleetDemo(t *testing.T, names []string, kubectl string) string {
	f := fleet.Get(t, names)
	cfg, err := clientcmd.LoadFromFile(f.Kubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cfg.Contexts {
		c.Namespace = "demo"
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, kubeconfig); err != nil {
		t.Fatal(err)
	}
	for _, name := range f.Names() {
		run := func(args ...string) {
			args = append([]string{"--kubeconfig", kubeconfig, "--context", name}, args...)
			if out, err := exec.Command(kubectl, args...).CombinedOutput(); err != nil {
				t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
			}
		}
		run("create", "namespace", "demo")
		t.Cleanup(func() { run("delete", "namespace", "demo", "--timeout", patience.String()) })
	}
	return kubeconfig
}

// TestBlocksAreTagged needs no cluster: every fenced block says what it
// is, and a shell block that is not run says why.
func TestBlocksAreTagged(t *testing.T) {
	for _, path := range pagePaths(t) {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		p, err := parsePage(path, string(text))
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range p.blocks {
			if err := checkTag(p, b); err != nil {
				t.Error(err)
			}
		}
	}
}

func checkTag(p *page, b block) error {
	switch {
	case b.info == "":
		return fmt.Errorf("%s:%d: a fenced block says what it holds (console, text, yaml, ...)", p.path, b.start)
	case (b.info == "sh" || b.info == "bash" || b.info == "shell") && b.directive != "skip":
		return fmt.Errorf("%s:%d: commands go in a console block, run by this test; a %s block needs <!-- doc-test: skip REASON -->", p.path, b.start, b.info)
	case b.info == "console" && b.directive == "file":
		return fmt.Errorf("%s:%d: a console block is run, not written to a file", p.path, b.start)
	}
	if b.info != "console" {
		if b.vary != nil || b.elide {
			return fmt.Errorf("%s:%d: doc-test vary and ellipsis mark a console block's output", p.path, b.start)
		}
		return nil
	}
	steps, err := p.steps(b)
	if err != nil {
		return err
	}
	return checkMarks(p, b, steps)
}

// checkMarks checks the marks of a console block: a line "..." of its
// output stands for lines only in a block marked ellipsis, and each value
// it marks as varying is one its output shows.
func checkMarks(p *page, b block, steps []step) error {
	var output []string
	elided := false
	for _, st := range steps {
		for i, line := range p.output(st) {
			if strings.TrimSpace(line) == ellipsis && !b.elide {
				return fmt.Errorf("%s:%d: a line ... stands for lines only in a block marked <!-- doc-test: ellipsis -->", p.path, st.outStart+i+1)
			}
			elided = elided || strings.TrimSpace(line) == ellipsis
		}
		output = append(output, p.output(st)...)
	}
	if b.elide && !elided {
		return fmt.Errorf("%s:%d: marked ellipsis, the block shows no line ...", p.path, b.start)
	}
	v, err := newVarying(b.vary)
	if err != nil {
		return fmt.Errorf("%s:%d: %w", p.path, b.start, err)
	}
	shown := map[string]bool{}
	for _, line := range output {
		for _, o := range v.occurrences(fold(line)) {
			shown[v.values[o[2]]] = true
		}
	}
	for _, val := range b.vary {
		if !shown[val] {
			return fmt.Errorf("%s:%d: marked to vary, %s is not in the block's output", p.path, b.start, val)
		}
	}
	return nil
}

// demoNamespace creates the namespace demo and returns a kubeconfig
// whose current namespace it is; the namespace is deleted (and awaited)
// when the test ends, and so are the CRDs the page installed: a page
// that shows what a daemon of every kind holds (history.md's serve
// status) must not see another page's (controllers.md's
// ConfigMapGenerators).
func demoNamespace(t *testing.T, admin, kubectl string) string {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	data, err := os.ReadFile(admin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(kubeconfig, data, 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		out, err := exec.Command(kubectl, append([]string{"--kubeconfig", kubeconfig}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("create", "namespace", "demo")
	run("config", "set-context", "--current", "--namespace", "demo")
	t.Cleanup(func() { run("delete", "namespace", "demo", "--timeout", patience.String()) })
	crds := func() []string { return strings.Fields(run("get", "customresourcedefinitions", "-o", "name")) }
	before := crds()
	t.Cleanup(func() {
		for _, crd := range crds() {
			if !slices.Contains(before, crd) {
				run("delete", crd, "--timeout", patience.String())
			}
		}
	})
	return kubeconfig
}

// runPage runs p's blocks in order and returns its text with the outputs
// that differ replaced by what the commands printed.
func runPage(t *testing.T, p *page, s *session) string {
	updated := slices.Clone(p.lines)
	var edits []edit
	for _, b := range p.blocks {
		if err := checkTag(p, b); err != nil {
			t.Fatal(err)
		}
		switch {
		case b.directive == "skip":
		case b.directive == "file":
			s.writeFile(b.arg, p.content(b))
		case b.info == "console":
			edits = append(edits, runBlock(t, p, b, s)...)
		case b.info == "text":
			checkSynopsis(t, p, b, s)
		}
	}
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		updated = slices.Replace(updated, e.start, e.end, e.lines...)
	}
	return strings.Join(updated, "\n") + "\n"
}

// edit replaces lines [start, end) of a page.
type edit struct {
	start, end int
	lines      []string
}

func runBlock(t *testing.T, p *page, b block, s *session) []edit {
	steps, _ := p.steps(b)
	await := 1
	if b.directive == "await" {
		await, _ = strconv.Atoi(b.arg)
	}
	var edits []edit
	v, _ := newVarying(b.vary) // checkTag checked them
	for _, st := range steps {
		got, code := s.runExit(st.cmd, await)
		want := p.output(st)
		if err := exitAgrees(want, code); err != nil {
			t.Errorf("%s:%d: $ %s: %v", p.path, st.line, st.cmd, err)
		}
		next, ok := matches(want, got, v, b.elide)
		if ok {
			v = next
		} else {
			edits = append(edits, edit{st.outStart, st.outEnd, got})
			if !*update {
				t.Errorf("%s:%d: $ %s\nthe page shows:\n%s\nit printed:\n%s%s", p.path, st.line, st.cmd, indent(want), indent(got), v)
			}
		}
	}
	return edits
}

// errorLine is an error as kubectl prints one, after the context it is of
// where a command reads several.
var errorLine = regexp.MustCompile(`^(context \S+: )?(error: |Error from server)`)

// exitAgrees checks a command's exit code against what the page shows: a
// command fails (exits non-zero) exactly where the page shows an error, as
// kubectl prints one (`error: ...`, `Error from server ...`). A page that
// shows another exit code prints it (`...; echo "exit $?"`).
func exitAgrees(shown []string, code int) error {
	if code < 0 {
		return nil
	}
	failed := slices.ContainsFunc(shown, errorLine.MatchString)
	switch {
	case code != 0 && !failed:
		return fmt.Errorf("exited %d where the page shows no error: show it (`; echo \"exit $?\"`) or the error", code)
	case code == 0 && failed:
		return fmt.Errorf("exited 0 where the page shows an error")
	}
	return nil
}

func indent(lines []string) string {
	if len(lines) == 0 {
		return "\t(nothing)"
	}
	return "\t" + strings.Join(lines, "\n\t")
}

var (
	synopsisWord = regexp.MustCompile(`^[a-z][a-z|-]*$`)
	synopsisFlag = regexp.MustCompile(`(?:^|[\s\[|])(--[a-z][a-z-]*|-[a-zA-Z])\b`)
)

// checkSynopsis checks each `kubectl reflect ...` line of a text block
// (with the indented lines that continue it) against the command's help:
// the command exists and has the flags shown.
func checkSynopsis(t *testing.T, p *page, b block, s *session) {
	for i := b.start; i < b.end; i++ {
		line := p.lines[i]
		if !strings.HasPrefix(line, "kubectl reflect ") {
			continue
		}
		for i+1 < b.end && strings.HasPrefix(p.lines[i+1], " ") {
			i++
			line += " " + p.lines[i]
		}
		for _, path := range synopsisCommands(line) {
			help := strings.Join(s.run("kubectl reflect "+path+" --help", 1), "\n")
			if !strings.Contains(help, "Usage:") {
				t.Errorf("%s:%d: `kubectl reflect %s` is not a command:\n%s", p.path, i+1, path, help)
				continue
			}
			for _, m := range synopsisFlag.FindAllStringSubmatch(line, -1) {
				if !regexp.MustCompile(`(?m)^\s+(-\w, )?` + regexp.QuoteMeta(m[1]) + `\b|^\s+` + regexp.QuoteMeta(m[1]) + `, `).MatchString(help) {
					t.Errorf("%s:%d: `kubectl reflect %s` has no flag %s", p.path, i+1, path, m[1])
				}
			}
		}
	}
}

// synopsisCommands are the command paths a synopsis line names: its
// lower-case words after `kubectl reflect`, `a|b` naming two.
func synopsisCommands(line string) []string {
	paths := []string{""}
	for _, w := range strings.Fields(strings.TrimPrefix(line, "kubectl reflect ")) {
		if !synopsisWord.MatchString(w) {
			break
		}
		var next []string
		for _, p := range paths {
			for _, alt := range strings.Split(w, "|") {
				next = append(next, strings.TrimSpace(p+" "+alt))
			}
		}
		paths = next
	}
	return paths
}
