package history

import (
	"database/sql"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	_ "modernc.org/sqlite" // reads the daemon's history file (awaitAlive)
)

// nextSecond waits until the clock has passed the second t is in: the API
// server dates changes to the second, and what is tested is which second
// each change was made in (no event tells that a second has passed).
func nextSecond(t time.Time) {
	time.Sleep(time.Until(t.Truncate(time.Second).Add(time.Second + 10*time.Millisecond)))
}

// managerTime is the time of manager's managedFields entry of cm.
func managerTime(t *testing.T, cm *corev1.ConfigMap, manager string) time.Time {
	t.Helper()
	for _, f := range cm.ManagedFields {
		if f.Manager == manager && f.Time != nil {
			return f.Time.UTC()
		}
	}
	t.Fatalf("%s has no managedFields entry of %s: %+v", cm.Name, manager, cm.ManagedFields)
	return time.Time{}
}

// TestCrashDatesOutage kills the recording daemon (SIGKILL), changes
// config maps while it is away, and starts it again: the changes its
// resumed watch brings are dated by the API server's own times, not when
// it saw them, so get --at a time inside the outage prints what kubectl
// printed then, and says which object's change it cannot place (a
// deletion, which the server does not date), exactly or, --strict, fails.
func TestCrashDatesOutage(t *testing.T) {
	e := newEnv(t)
	p := e.recordThree()
	cols := "custom-columns=NAME:.metadata.name,K:.data.k"
	before := e.kubectl("get", "cm", "-n", e.ns, "-o", cols)
	beforeAt := time.Now()
	p.Signal(syscall.SIGKILL)
	p.Wait()
	nextSecond(beforeAt)

	changed := e.updateCM("changed", "editor", "k", "2")
	edited := managerTime(t, changed, "editor")
	nextSecond(edited)
	during := e.kubectl("get", "cm", "-n", e.ns, "-o", cols)
	duringAt := time.Now()
	nextSecond(duringAt)
	e.deleteCM("gone")
	added := e.createCM("added", nil, "k", "1")
	e.serve("configmaps", "--record")
	e.recorded("added", added.ResourceVersion)

	if got := revisionTime(e.recorded("changed", changed.ResourceVersion+" "), changed.ResourceVersion); got != edited.Format(time.RFC3339) {
		t.Errorf("history of changed: the change made while the daemon was away is dated %s, want %s, its managedFields entry's time", got, edited.Format(time.RFC3339))
	}
	if got, want := revisionTime(e.recorded("added", added.ResourceVersion), added.ResourceVersion), added.CreationTimestamp.UTC().Format(time.RFC3339); got != want {
		t.Errorf("history of added: dated %s, want %s, its creation", got, want)
	}
	if got := revisionTime(e.recorded("gone", "DELETED"), "DELETED"); !strings.HasPrefix(got, edited.Format(time.RFC3339)+"/") {
		t.Errorf("history of gone: its deletion, which the server does not date, is dated %s, want a window from the change before it (%s)", got, edited.Format(time.RFC3339))
	}

	at := func(when time.Time, extra ...string) (string, string, int) {
		return e.run(append([]string{"get", "cm", "-n", e.ns, "-o", cols, "--at", when.Format(time.RFC3339Nano)}, extra...)...)
	}
	if out, errOut, code := at(beforeAt); code != 0 || out != before || errOut != "" {
		t.Errorf("get --at before the crash: exit %d\n%s%s\nwant:\n%s", code, out, errOut, before)
	}
	out, errOut, code := at(duringAt)
	if code != 0 || out != during {
		t.Errorf("get --at during the outage: exit %d\n%s%s\nkubectl get then:\n%s", code, out, errOut, during)
	}
	if want := fmt.Sprintf("warning: configmaps %s/gone changed at a time between %s and ", e.ns, edited.Format(time.RFC3339)); !strings.HasPrefix(errOut, want) || strings.Count(errOut, "\n") != 1 {
		t.Errorf("get --at during the outage says %q, want one line starting %q", errOut, want)
	}
	if _, errOut, code := at(duringAt, "--strict"); code != 1 || !strings.HasPrefix(errOut, "error: the state at ") || !strings.Contains(errOut, "/gone changed") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("get --at --strict during the outage: exit %d, %q", code, errOut)
	}
	now := e.kubectl("get", "cm", "-n", e.ns, "-o", cols)
	if out, errOut, code := at(time.Now()); code != 0 || out != now || errOut != "" {
		t.Errorf("get --at after the restart: exit %d\n%s%s\nwant:\n%s", code, out, errOut, now)
	}
}

// revisionTime is the TIME of the line of a history table that holds
// word (a resourceVersion, an operation).
func revisionTime(table, word string) string {
	for _, line := range strings.Split(table, "\n") {
		if f := strings.Fields(line); len(f) > 1 && (f[0] == word || len(f) > 2 && f[2] == word) {
			return f[1]
		}
	}
	return ""
}

// awaitAlive waits until the daemon's history says its record of
// resource was current after t (its heartbeat, or a write).
func (e *env) awaitAlive(resource string, after time.Time) {
	e.t.Helper()
	db, err := sql.Open("sqlite", "file:"+e.historyFile()+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		e.t.Fatal(err)
	}
	defer db.Close()
	deadline := time.Now().Add(patience)
	for {
		var ms int64
		err := db.QueryRow(`SELECT a.time FROM alive a JOIN resources r ON r.id = a.resource WHERE r.name = ?`, resource).Scan(&ms)
		if err == nil && ms > after.UnixMilli() {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("the record of %s was never current after %s (%v)", resource, after, err)
		}
		time.Sleep(200 * time.Millisecond) // polling a file another process writes: no event to await
	}
}

// TestGapStartsWhereRecordingStopped: config maps quiet while secrets
// change, then the daemon killed, etcd compacted and the API server
// restarted: the restarted daemon relists, and the gap it records starts
// where its record of config maps was last known current (its heartbeat),
// not at their last change, so get --at a time in between still answers,
// exactly, and a time inside the gap names its real window.
func TestGapStartsWhereRecordingStopped(t *testing.T) {
	e := newEnv(t)
	p := e.serve("configmaps,secrets", "--record")
	cm := e.createCM("quiet", nil, "k", "1")
	e.recorded("quiet", cm.ResourceVersion)
	sec := e.createSecret("busy")
	e.recordedAs("secret/busy", sec.ResourceVersion)
	cols := "custom-columns=NAME:.metadata.name,K:.data.k"
	quiet := e.kubectl("get", "cm", "-n", e.ns, "-o", cols)
	quietAt := time.Now()
	e.awaitAlive("configmaps.v1.", quietAt)
	p.Signal(syscall.SIGKILL)
	p.Wait()
	killed := time.Now()

	e.updateCM("quiet", "editor", "k", "2")
	e.forgetChanges()
	p = e.serve("configmaps,secrets", "--record")
	e.recorded("quiet", "MODIFIED")

	if out, errOut, code := e.run("get", "cm", "-n", e.ns, "-o", cols, "--at", quietAt.Format(time.RFC3339Nano)); code != 0 || out != quiet {
		t.Errorf("get --at while recording, after the last change of config maps: exit %d\n%s%s\nwant:\n%s", code, out, errOut, quiet)
	}
	_, errOut, code := e.run("get", "cm", "-n", e.ns, "--at", killed.Format(time.RFC3339Nano))
	if code != 1 || !strings.Contains(errOut, ": the history has a gap from resourceVersion ") || !strings.Contains(errOut, "(nothing was recording)") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("get --at inside the gap: exit %d, %q", code, errOut)
	}
	stopServe(t, p)
}
