package history

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/test/testkit"
)

// TestWatchSince: watch --since replays the history from a resourceVersion
// (the state then, every change since, in order, the deletion included)
// and goes on live: a change made after it is the next event, none lost
// or repeated at the seam; with --watch-only the state is left out; 0s
// replays nothing.
func TestWatchSince(t *testing.T) {
	e := newEnv(t)
	e.serve("configmaps", "--record")
	a := e.createCM("a", nil, "k", "1")
	a2 := e.updateCM("a", "editor", "k", "2")
	b := e.createCM("b", nil, "k", "1")
	e.deleteCM("a")
	e.recorded("a", "DELETED")
	deleted := strings.Fields(strings.Split(strings.TrimSpace(e.recorded("a", "DELETED")), "\n")[3])[0]

	state := []string{"APPLIED a@" + a.ResourceVersion}
	changes := []string{"APPLIED a@" + a2.ResourceVersion, "APPLIED b@" + b.ResourceVersion, "DELETED a@" + deleted}
	for i, flags := range [][]string{nil, {"--watch-only"}} {
		want := changes
		if len(flags) == 0 {
			want = append(state, changes...)
		}
		args := append([]string{"watch", "cm", "-n", e.ns, "--since", a.ResourceVersion, "-o", "json", "--output-watch-events"}, flags...)
		p := testkit.StartProc(t, e.cmd(binary, args...))
		var got []string
		for range want {
			got = append(got, event(t, p.Next()))
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("watch %v replayed:\n got %v\nwant %v", flags, got, want)
		}
		c := e.createCM(fmt.Sprint("live", i), nil, "k", "1")
		live := "APPLIED " + c.Name + "@" + c.ResourceVersion
		if got := event(t, p.Next()); got != live {
			t.Errorf("watch %v: after the replay, %s; want the live change %s", flags, got, live)
		}
		stopServe(t, p)
		e.recorded(c.Name, c.ResourceVersion)
		changes = append(changes, live) // the next replay has it
	}

	// 0s is now: nothing to replay, the next change is live. "Now" is
	// when the watch reads its flags, which no line tells: a change made
	// before it is the state (left out), so changes are made until one
	// shows, and it is the latest.
	p := testkit.StartProc(t, e.cmd(binary, "watch", "cm", "-n", e.ns, "--since", "0s", "--watch-only", "-o", "json", "--output-watch-events"))
	var made []string
	got := event(t, p.UntilLine(func(i int) {
		c := e.createCM(fmt.Sprint("live-now-", i), nil, "k", "1")
		made = append(made, "APPLIED "+c.Name+"@"+c.ResourceVersion)
	}))
	if !slices.Contains(made, got) {
		t.Errorf("watch --since 0s --watch-only: %s; want one of the changes made since it started, %v", got, made)
	}
	stopServe(t, p)

	// A moment before the history: one line.
	_, errOut, code := e.run("watch", "cm", "-n", e.ns, "--since", "1", "--max-events", "1")
	if code != 1 || !strings.HasPrefix(errOut, "error: configmaps at resourceVersion 1: the record begins at ") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("watch --since 1: exit %d, %q", code, errOut)
	}
}

// TestWatchSinceKinds: a replay of several kinds prints their states in
// the order given, then the changes of both in the order they happened
// (resourceVersion), not one kind's after the other's.
func TestWatchSinceKinds(t *testing.T) {
	e := newEnv(t)
	e.serve("configmaps,secrets", "--record")
	a := e.createCM("a", nil, "k", "1")
	s0 := e.createSecret("s0")
	a1 := e.updateCM("a", "editor", "k", "2")
	s1 := e.createSecret("s1")
	a2 := e.updateCM("a", "editor", "k", "3")
	s2 := e.createSecret("s2")
	e.recorded("a", a2.ResourceVersion)
	e.recordedAs("secret/s2", s2.ResourceVersion)

	want := []string{
		"APPLIED a@" + a.ResourceVersion, "APPLIED s0@" + s0.ResourceVersion, // the states, configmaps first
		"APPLIED a@" + a1.ResourceVersion, "APPLIED s1@" + s1.ResourceVersion,
		"APPLIED a@" + a2.ResourceVersion, "APPLIED s2@" + s2.ResourceVersion,
	}
	p := testkit.StartProc(t, e.cmd(binary, "watch", "configmaps,secrets", "-n", e.ns, "--since", s0.ResourceVersion, "-o", "json", "--output-watch-events"))
	var got []string
	for range want {
		got = append(got, event(t, p.Next()))
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("watch configmaps,secrets --since replayed:\n got %v\nwant %v", got, want)
	}
	live := e.createSecret("live")
	if got, want := event(t, p.Next()), "APPLIED live@"+live.ResourceVersion; got != want {
		t.Errorf("after the replay, %s; want the live change %s", got, want)
	}
	stopServe(t, p)
}

// event is one line of watch -o json --output-watch-events as
// "TYPE name@resourceVersion".
func event(t *testing.T, line string) string {
	t.Helper()
	var ev struct {
		Type   string `json:"type"`
		Object struct {
			Metadata struct{ Name, ResourceVersion string } `json:"metadata"`
		} `json:"object"`
	}
	if err := json.Unmarshal([]byte(line), &ev); err != nil {
		t.Fatalf("not a watch event: %q: %v", line, err)
	}
	return ev.Type + " " + ev.Object.Metadata.Name + "@" + ev.Object.Metadata.ResourceVersion
}
