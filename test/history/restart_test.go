package history

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
)

// TestRestartWarm stops the daemon, changes config maps while it is away,
// and starts it again: it starts from its history and resumes the watch
// where the record ends (no relist), so the history has each change at its
// own resourceVersion, the deletion included, and no gap: get --at prints
// the state between them. The daemon then serves what the API server lists.
func TestRestartWarm(t *testing.T) {
	e := newEnv(t)
	p := e.recordThree()
	stopServe(t, p)

	changed := e.updateCM("changed", "editor", "k", "2")
	e.deleteCM("gone")
	added := e.createCM("added", nil, "k", "1")
	p = e.serve("configmaps", "--record")
	e.recorded("added", added.ResourceVersion)
	p.WaitErrLine(`^Restored from the history: configmaps at resourceVersion \d+, namespaces at resourceVersion \d+; resuming their watches$`)
	e.checkOps(map[string][]string{"kept": {"ADDED"}, "changed": {"ADDED", "MODIFIED"}, "gone": {"ADDED", "DELETED"}, "added": {"ADDED"}})
	if out := e.recorded("changed", changed.ResourceVersion+" "); !strings.Contains(out, "editor") {
		t.Errorf("history of changed: the change made while the daemon was away is not at its own resourceVersion, by its manager:\n%s", out)
	}
	cols := "custom-columns=NAME:.metadata.name,K:.data.k"
	want := "NAME      K\nchanged   2\ngone      1\nkept      1\n"
	if got := e.mustRun("get", "cm", "-n", e.ns, "--at", changed.ResourceVersion, "-o", cols); got != want {
		t.Errorf("get --at %s, between two changes made while the daemon was away:\n%s\nwant:\n%s", changed.ResourceVersion, got, want)
	}
	if got := e.daemonMetric(p, `kubectl_reflect_serve_relists_total{resource="configmaps"}`); got != "0" {
		t.Errorf("the daemon relisted configmaps (%s times): it should have resumed its watch", got)
	}
	e.servesWhatServerLists(p)
}

// TestRestartAfterCompaction: a daemon restarted after the API server
// forgot where its record ends (etcd compacted, the API server restarted)
// starts from its history, is refused the watch (410), relists and records
// what the relist found: the deletion at the relist's resourceVersion, an
// object created meanwhile as INITIAL (its creation was not seen), and
// the stretch it did not see as a gap, which get --at refuses in one line.
func TestRestartAfterCompaction(t *testing.T) {
	e := newEnv(t)
	p := e.recordThree()
	stopServe(t, p)

	changed := e.updateCM("changed", "editor", "k", "2")
	e.deleteCM("gone")
	added := e.createCM("added", nil, "k", "1")
	e.forgetChanges()
	p = e.serve("configmaps", "--record")
	e.recorded("added", added.ResourceVersion)
	// added was created while nothing watched: the relist found it, INITIAL.
	e.checkOps(map[string][]string{"kept": {"ADDED"}, "changed": {"ADDED", "MODIFIED"}, "gone": {"ADDED", "DELETED"}, "added": {"INITIAL"}})
	if got := e.daemonMetric(p, `kubectl_reflect_serve_relists_total{resource="configmaps"}`); got != "1" {
		t.Errorf("the daemon relisted configmaps %s times, want once (410 on the watch it resumed)", got)
	}
	// Inside the gap (after the last change recorded, before the list
	// that found the rest): no state is known.
	_, errOut, code := e.run("get", "cm", "-n", e.ns, "--at", changed.ResourceVersion)
	if code != 1 || !strings.HasPrefix(errOut, "error: configmaps at resourceVersion "+changed.ResourceVersion+": the history has a gap from resourceVersion ") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("get --at in the gap: exit %d, %q", code, errOut)
	}
	e.servesWhatServerLists(p)
}

// TestKillInABurst kills the daemon (SIGKILL) while a burst of updates
// streams in, starts it again and lets the burst end: the file is whole,
// and the daemon, restarted warm from what it had committed, resumes its
// watch there, so every revision of the burst is recorded, none lost at
// the kill, and the last state recorded is the cluster's.
func TestKillInABurst(t *testing.T) {
	e := newEnv(t)
	p := e.serve("configmaps", "--record")
	const objects, rounds = 10, 30
	var first []string
	for i := range objects {
		first = append(first, e.createCM(fmt.Sprintf("burst-%d", i), nil, "round", "0").ResourceVersion)
	}
	e.recorded("burst-9", first[objects-1])

	var wg sync.WaitGroup
	killed := make(chan struct{})
	written := make([][]string, objects) // each object's resourceVersions, in order
	ctx := context.Background()
	for i := range objects {
		wg.Go(func() {
			for r := 1; r <= rounds; r++ {
				if i == 0 && r == rounds/3 {
					p.Signal(syscall.SIGKILL) // a third into the burst
					close(killed)
				}
				cm := corev1ac.ConfigMap(fmt.Sprintf("burst-%d", i), e.ns).WithData(map[string]string{"round": fmt.Sprint(r)})
				out, err := e.cs.CoreV1().ConfigMaps(e.ns).Apply(ctx, cm, metav1.ApplyOptions{FieldManager: "burst", Force: true})
				if err != nil {
					t.Error(err)
					return
				}
				written[i] = append(written[i], out.ResourceVersion)
			}
		})
	}
	<-killed
	p.Wait()
	e.serve("configmaps", "--record")
	wg.Wait()
	// The recorder writes in resourceVersion order: once the newest
	// change is recorded, every one before it is.
	list, err := e.cs.CoreV1().ConfigMaps(e.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	newest := list.Items[0]
	for _, cm := range list.Items {
		if len(cm.ResourceVersion) > len(newest.ResourceVersion) || (len(cm.ResourceVersion) == len(newest.ResourceVersion) && cm.ResourceVersion > newest.ResourceVersion) {
			newest = cm
		}
	}
	e.recorded(newest.Name, newest.ResourceVersion)
	// The state recorded at the last write is the cluster's.
	want := e.kubectl("get", "cm", "-n", e.ns, "-o", "custom-columns=NAME:.metadata.name,ROUND:.data.round,RV:.metadata.resourceVersion")
	got := e.mustRun("get", "cm", "-n", e.ns, "--at", "0s", "-o", "custom-columns=NAME:.metadata.name,ROUND:.data.round,RV:.metadata.resourceVersion")
	if got != want {
		t.Errorf("get --at after the burst:\n%s\nkubectl get:\n%s", got, want)
	}
	// Every revision is recorded: those committed before the kill, and
	// those the resumed watch brought.
	for i := range objects {
		out := e.mustRun("history", fmt.Sprintf("cm/burst-%d", i), "-n", e.ns)
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
			got = append(got, strings.Fields(line)[0])
		}
		if want := append([]string{first[i]}, written[i]...); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("history of burst-%d: revisions %v, want %v", i, got, want)
		}
	}
	if out, _, code := e.run("history", "cm/burst-0", "-n", e.ns, "--diff"); code != 0 || !strings.Contains(out, "+  round: \""+fmt.Sprint(rounds)+"\"") {
		t.Errorf("history --diff of burst-0: exit %d\n%s", code, out)
	}
}

// TestMaxSize: a daemon started with --record-max-size on a history
// larger than that prunes its oldest part at once, keeping the latest
// state: an object's early revisions go, its last one stays. The daemon
// says once where the record begins now and why; a query before it
// (get --at, watch --since, history --revision) fails in one line that
// says the same, and serve status shows it.
func TestMaxSize(t *testing.T) {
	e := newEnv(t)
	p := e.serve("configmaps", "--record")
	early := time.Now().UTC().Format(time.RFC3339Nano)
	e.createCM("big", nil, "payload", "")
	var last string
	letters := make([]byte, 8<<10) // random letters: each revision a keyframe of about 8 KiB
	for range 60 {
		for i := range letters {
			letters[i] = byte('a' + rand.IntN(26))
		}
		last = e.updateCM("big", "writer", "payload", string(letters)).ResourceVersion
	}
	e.recorded("big", last)
	first := strings.Fields(strings.Split(e.recorded("big", last), "\n")[1])[0]
	stopServe(t, p)

	p = e.serve("configmaps", "--record", "--record-max-size", "200Ki")
	moved := p.WaitErrLine("^history: the record now begins at ")
	if !strings.HasSuffix(moved, " (older revisions pruned to stay under 200Ki)") {
		t.Errorf("the daemon said %q", moved)
	}
	deadline := time.Now().Add(patience)
	for {
		out := e.mustRun("history", "cm/big", "-n", e.ns)
		if !strings.Contains(out, first+" ") {
			if !strings.Contains(out, last+" ") {
				t.Errorf("the last revision %s went with the oldest:\n%s", last, out)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the first revision %s is still there:\n%s", first, out)
		}
		time.Sleep(100 * time.Millisecond) // polling a file another process prunes: no event to await
	}
	if got := e.mustRun("get", "cm", "big", "-n", e.ns, "--at", last, "-o", "jsonpath={.metadata.resourceVersion}"); got != last {
		t.Errorf("get --at %s after pruning: %q", last, got)
	}
	const why = ": older revisions pruned to stay under 200Ki\n"
	for _, args := range [][]string{
		{"get", "cm", "-n", e.ns, "--at", early},
		{"get", "cm", "-n", e.ns, "--at", first},
		{"watch", "cm", "-n", e.ns, "--since", first, "--max-events", "1"},
		{"history", "cm/big", "-n", e.ns, "--revision", first},
	} {
		_, errOut, code := e.run(args...)
		if code != 1 || !strings.HasPrefix(errOut, "error: ") || !strings.Contains(errOut, "the record begins at ") ||
			!strings.HasSuffix(errOut, why) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s: exit %d, %q; want one line saying where the record begins and why", strings.Join(args[:2], " "), code, errOut)
		}
	}
	status := e.mustRun("serve", "status")
	for _, want := range []string{"The record begins at ", "older revisions pruned to stay under 200Ki\n", "of at most 200Ki",
		"\nWritten since ", "\nRESOURCE     REVISIONS   BYTES\nconfigmaps   "} {
		if !strings.Contains(status, want) {
			t.Errorf("serve status lacks %q:\n%s", want, status)
		}
	}
	stopServe(t, p)
}
