package history

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// terminal is a tmux server of the test's own, running one command in
// a window of 120 by 30.
type terminal struct {
	t      *testing.T
	tmux   string
	socket string
}

// newTerminal finds tmux (`make tmux` installs it): a test without it
// fails under CI and is skipped elsewhere.
func newTerminal(t *testing.T) *terminal {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tmux is missing: make tmux installs it")
		}
		t.Skip("tmux is missing: make tmux installs it")
	}
	term := &terminal{t: t, tmux: tmux, socket: filepath.Join(t.TempDir(), "tmux.sock")}
	t.Cleanup(func() { exec.Command(tmux, "-S", term.socket, "kill-server").Run() })
	return term
}

func (term *terminal) run(args ...string) string {
	term.t.Helper()
	out, err := exec.Command(term.tmux, append([]string{"-S", term.socket}, args...)...).CombinedOutput()
	if err != nil {
		term.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// start runs argv with env in the terminal.
func (term *terminal) start(env []string, argv ...string) {
	quoted := make([]string, 0, len(env)+len(argv)+1)
	quoted = append(quoted, "env")
	for _, a := range append(env, argv...) {
		quoted = append(quoted, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
	}
	term.run("new-session", "-d", "-s", "t", "-x", "120", "-y", "30", strings.Join(quoted, " "))
}

// screen is what the terminal shows (with escape sequences when escapes).
func (term *terminal) screen(escapes bool) string {
	args := []string{"capture-pane", "-p", "-t", "t"}
	if escapes {
		args = append(args, "-e")
	}
	return term.run(args...)
}

// await waits until the screen holds every one of want, and returns it.
func (term *terminal) await(want ...string) string {
	term.t.Helper()
	return term.awaitFunc(fmt.Sprintf("%q", want), func(s string) bool {
		for _, w := range want {
			if !strings.Contains(s, w) {
				return false
			}
		}
		return true
	})
}

// awaitFunc waits until ok says yes to the screen, and returns it.
func (term *terminal) awaitFunc(what string, ok func(string) bool) string {
	term.t.Helper()
	deadline := time.Now().Add(patience)
	for {
		s := term.screen(false)
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			term.t.Fatalf("the screen never showed %s:\n%s", what, s)
		}
		time.Sleep(50 * time.Millisecond) // a screen to poll: tmux tells no event
	}
}

func (term *terminal) keys(keys ...string) {
	term.run(append([]string{"send-keys", "-t", "t"}, keys...)...)
}

// title is the screen's first line.
func title(screen string) string {
	line, _, _ := strings.Cut(screen, "\n")
	return line[:strings.Index(line+"  cursor", "  cursor")] // the span alone
}

// TestTimelineInteractive: in a terminal, timeline shows its keys, moves
// the selection (j), zooms (+), filters (/web), opens the revision under
// the cursor (Enter: its diff and the object then), goes back (Esc) and
// quits (q); with NO_COLOR set it draws no colour.
func TestTimelineInteractive(t *testing.T) {
	term := newTerminal(t)
	e := newEnv(t)
	since, until := e.recordTimeline()
	env := []string{"KUBECONFIG=" + e.kubeconfig, "XDG_RUNTIME_DIR=" + e.runtime, "XDG_STATE_HOME=" + e.state, "NO_COLOR=1", "TERM=xterm-256color"}
	term.start(env, binary, "timeline", "deployments", "-n", e.ns,
		"--since", since.Add(-time.Minute).UTC().Format(time.RFC3339), "--until", until.Add(time.Minute).UTC().Format(time.RFC3339))
	first := term.await("enter revision  q quit", "> old ", "deployments.apps in "+e.ns)
	if s := term.screen(true); strings.Contains(s, "\x1b[7m") || strings.Contains(s, "\x1b[3") {
		t.Errorf("NO_COLOR is set, but the screen has colours:\n%q", s)
	}
	term.keys("j")
	term.await("> web ")
	term.keys("+")
	term.awaitFunc("a narrower span after +", func(s string) bool { return title(s) != title(first) && strings.Contains(s, "> web ") })
	term.keys("/", "w", "e", "b", "Enter")
	filtered := term.await("filter web ")
	if strings.Contains(filtered, " old ") {
		t.Errorf("/web kept old:\n%s", filtered)
	}
	term.keys("Enter")
	detail := term.await("get --at ", "esc back")
	if !strings.Contains(detail, "deployments.apps/web (resourceVersion ") && !strings.Contains(detail, "Warning FailedCreate") {
		t.Errorf("Enter showed no revision of web:\n%s", detail)
	}
	term.keys("Escape")
	term.await("filter web ", "enter revision  q quit")
	term.keys("q")
	deadline := time.Now().Add(patience)
	for exec.Command(term.tmux, "-S", term.socket, "has-session", "-t", "t").Run() == nil {
		if time.Now().After(deadline) {
			t.Fatalf("q did not quit:\n%s", term.screen(false))
		}
		time.Sleep(50 * time.Millisecond)
	}
}
