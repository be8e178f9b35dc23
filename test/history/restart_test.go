package history

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
)

// TestRestartRecordsWhatItMissed stops the daemon, changes config maps
// while it is away, and starts it again: the history has each change
// (the deletion at the list's resourceVersion), and the stretch it did
// not see is a gap get --at refuses in one line.
func TestRestartRecordsWhatItMissed(t *testing.T) {
	e := newEnv(t)
	p := e.serve("configmaps", "--record")
	e.createCM("kept", nil, "k", "1")
	e.createCM("changed", nil, "k", "1")
	gone := e.createCM("gone", nil, "k", "1")
	e.recorded("gone", gone.ResourceVersion)
	p.Signal(syscall.SIGTERM)
	if code := p.Wait(); code != 0 {
		t.Fatalf("serve exited %d", code)
	}

	changed := e.updateCM("changed", "editor", "k", "2")
	e.deleteCM("gone")
	added := e.createCM("added", nil, "k", "1")
	e.serve("configmaps", "--record")
	e.recorded("added", added.ResourceVersion)

	for name, want := range map[string][]string{
		"kept":    {"ADDED"},
		"changed": {"ADDED", "MODIFIED"},
		"gone":    {"ADDED", "DELETED"},
	} {
		out := e.recorded(name, want[len(want)-1])
		var ops []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
			ops = append(ops, strings.Fields(line)[2])
		}
		if strings.Join(ops, " ") != strings.Join(want, " ") {
			t.Errorf("history of %s:\n%s", name, out)
		}
	}
	// Inside the gap (after the last change recorded, before the list
	// that found the rest): no state is known.
	_, errOut, code := e.run("get", "cm", "-n", e.ns, "--at", changed.ResourceVersion)
	if code != 1 || !strings.HasPrefix(errOut, "error: configmaps at resourceVersion "+changed.ResourceVersion+": the history has a gap from resourceVersion ") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("get --at in the gap: exit %d, %q", code, errOut)
	}
}

// TestKillInABurst kills the daemon (SIGKILL) while a burst of updates
// streams in, starts it again and lets the burst end: what it committed
// is there, the file is whole, and the last state recorded is the
// cluster's, every object and its data.
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
	ctx := context.Background()
	for i := range objects {
		wg.Go(func() {
			for r := 1; r <= rounds; r++ {
				if i == 0 && r == rounds/3 {
					p.Signal(syscall.SIGKILL) // a third into the burst
					close(killed)
				}
				cm := corev1ac.ConfigMap(fmt.Sprintf("burst-%d", i), e.ns).WithData(map[string]string{"round": fmt.Sprint(r)})
				if _, err := e.cs.CoreV1().ConfigMaps(e.ns).Apply(ctx, cm, metav1.ApplyOptions{FieldManager: "burst", Force: true}); err != nil {
					t.Error(err)
					return
				}
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
	got := e.mustRun("get", "cm", "-n", e.ns, "--at", "1ms", "-o", "custom-columns=NAME:.metadata.name,ROUND:.data.round,RV:.metadata.resourceVersion")
	if got != want {
		t.Errorf("get --at after the burst:\n%s\nkubectl get:\n%s", got, want)
	}
	// What was committed before the kill is kept: the objects' first
	// revisions, and the file reads whole.
	for _, i := range []int{0, objects / 2, objects - 1} {
		out := e.mustRun("history", fmt.Sprintf("cm/burst-%d", i), "-n", e.ns)
		if !strings.Contains(out, first[i]+" ") {
			t.Errorf("history of burst-%d lost its first revision %s:\n%s", i, first[i], out)
		}
	}
	if out, _, code := e.run("history", "cm/burst-0", "-n", e.ns, "--diff"); code != 0 || !strings.Contains(out, "+  round: \""+fmt.Sprint(rounds)+"\"") {
		t.Errorf("history --diff of burst-0: exit %d\n%s", code, out)
	}
}
