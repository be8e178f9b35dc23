package multicluster

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// TestDiffContexts: the same object in several clusters, now: equal exits
// 0 and prints nothing, different exits 1 with the hunk under headers
// naming the contexts; an object one cluster lacks is one line; a kind's
// every object is paired by name; --ignore leaves a difference out.
func TestDiffContexts(t *testing.T) {
	f := fleet.Get(t)
	cs := clients(t, f)
	ns := namespaceIn(t, cs)
	east := createCM(t, cs["east"], ns, "settings", "k", "1")
	west := createCM(t, cs["west"], ns, "settings", "k", "3")
	createCM(t, cs["east"], ns, "same", "k", "1")
	createCM(t, cs["west"], ns, "same", "k", "1")
	createCM(t, cs["east"], ns, "canary")
	kc := kubeconfig(t, f, ns, nil)

	diffIs(t, kc, 0, "", "diff", "cm/same", "--context", "east,west")
	settings := settingsDiff("east", "west", ns, east.ResourceVersion, west.ResourceVersion)
	diffIs(t, kc, 1, settings, "diff", "cm/settings", "--context", "east,west")
	diffIs(t, kc, 1, "only in east: configmap/canary -n "+ns+"\n", "diff", "configmap", "canary", "--context", "east,west")
	diffIs(t, kc, 1, "only in east: configmap/canary -n "+ns+"\n"+settings, "diff", "cm", "-n", ns, "--context", "east,west")
	diffIs(t, kc, 1, "missing in north: configmap/settings -n "+ns+"\n"+settings, "diff", "cm/settings", "--context", "east,west,north")
	diffIs(t, kc, 0, "", "diff", "cm/settings", "--context", "east,west", "--ignore", "data.k")
	diffIs(t, kc, 1, "only in east: configmap/canary -n "+ns+"\n", "diff", "cm", "--context", "east,west", "--ignore", "data")
}

// TestDiffContextsAt: --at with several contexts compares each
// context's own record at that time, as its daemon recorded it; a context
// with no record is one error line.
func TestDiffContextsAt(t *testing.T) {
	cs, ns, kc, east, west := recordSettings(t)
	then := time.Now()
	changed := updateCM(t, cs["west"], ns, "settings", "k", "1")
	recorded(t, kc, "west", ns, changed.ResourceVersion)

	diffIs(t, kc, 0, "", "diff", "cm/settings", "--context", "east,west")
	at := " at " + then.UTC().Format(time.RFC3339)
	want := settingsDiff("east"+at, "west"+at, ns, east.ResourceVersion, west.ResourceVersion)
	diffIs(t, kc, 1, want, "diff", "cm/settings", "--context", "east,west", "--at", then.UTC().Format(time.RFC3339Nano))

	_, errOut, code := run(t, kc, "diff", "cm/settings", "--context", "east,north", "--at", "1m")
	if code != 2 || !strings.HasPrefix(errOut, "error: context north: no history at ") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("a context with no history: exit %d, %q", code, errOut)
	}
	_, errOut, code = run(t, kc, "diff", "cm/settings", "--context", "east,west", "--at", "1m", "--at", "2m")
	if code != 2 || errOut != "error: with several contexts, diff compares each context's state at one moment: give --at once\n" {
		t.Errorf("two --at with contexts: exit %d, %q", code, errOut)
	}
}

// settingsDiff is the diff of config map settings from k=1 in side a at
// resourceVersion rvA to k=3 in side b at rvB.
func settingsDiff(a, b, ns, rvA, rvB string) string {
	return fmt.Sprintf(`--- %s: configmap/settings -n %s (resourceVersion %s)
+++ %[4]s: configmap/settings -n %[2]s (resourceVersion %[5]s)
@@ -1,6 +1,6 @@
 apiVersion: v1
 data:
-  k: "1"
+  k: "3"
 kind: ConfigMap
 metadata:
   name: settings
`, a, ns, rvA, b, rvB)
}

// diffIs runs a diff and checks its exit code and stdout (stderr empty).
func diffIs(t *testing.T, kc string, code int, want string, args ...string) {
	t.Helper()
	out, errOut, got := run(t, kc, args...)
	if got != code || out != want || errOut != "" {
		t.Errorf("%s: exit %d, want %d; stderr %q\n%s\nwant:\n%s", strings.Join(args, " "), got, code, errOut, out, want)
	}
}

// recordSettings serves config maps in east and west, recording, creates
// config map settings in a namespace of the test in each (k=1 in east,
// k=3 in west), and waits until both are recorded.
func recordSettings(t *testing.T) (cs map[string]kubernetes.Interface, ns, kc string, east, west *corev1.ConfigMap) {
	t.Helper()
	f := fleet.Get(t)
	cs = clients(t, f)
	ns = namespaceIn(t, cs)
	kc = kubeconfig(t, f, ns, nil)
	serveContexts(t, kc, "configmaps", "--record", "--context", "east,west")
	east = createCM(t, cs["east"], ns, "settings", "k", "1")
	west = createCM(t, cs["west"], ns, "settings", "k", "3")
	recorded(t, kc, "east", ns, east.ResourceVersion)
	recorded(t, kc, "west", ns, west.ResourceVersion)
	return cs, ns, kc, east, west
}

// recorded waits until context's history holds config map settings of
// ns at resourceVersion rv.
func recorded(t *testing.T, kc, context, ns, rv string) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for {
		out, _, code := run(t, kc, "history", "cm/settings", "-n", ns, "--context", context)
		if code == 0 && strings.Contains(out, rv) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the history of %s never showed resourceVersion %s:\n%s", context, rv, out)
		}
		time.Sleep(100 * time.Millisecond) // polling a file another process writes: no event to await
	}
}

// updateCM sets data k=v pairs of config map name in ns.
func updateCM(t *testing.T, cs kubernetes.Interface, ns, name string, kv ...string) *corev1.ConfigMap {
	t.Helper()
	ctx := context.Background()
	cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		cm.Data[kv[i]] = kv[i+1]
	}
	out, err := cs.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
