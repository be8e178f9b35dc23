package history

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestDiffMoments: diff of two moments of a recorded config map exits 0
// and prints nothing when they are equal (noise aside), exits 1 with the
// hunk of the change when not, under headers naming each moment (a
// resourceVersion, a time, now); --ignore leaves the change out; an
// object created between the moments is "only in" the later one.
func TestDiffMoments(t *testing.T) {
	e := newEnv(t)
	e.serve("configmaps", "--record")
	v1 := e.createCM("settings", map[string]string{"team": "a"}, "mode", "fast")
	e.recorded("settings", v1.ResourceVersion)
	then := time.Now()
	v2 := e.updateCM("settings", "editor", "mode", "safe")
	added := e.createCM("added", nil, "k", "1")
	e.recorded("added", added.ResourceVersion)
	e.recorded("settings", v2.ResourceVersion)

	e.diff(0, "", "diff", "cm/settings", "-n", e.ns, "--at", v2.ResourceVersion)
	e.diff(0, "", "diff", "cm/settings", "-n", e.ns, "--at", v1.ResourceVersion, "--at", v1.ResourceVersion)
	hunk := `@@ -1,6 +1,6 @@
 apiVersion: v1
 data:
-  mode: fast
+  mode: safe
 kind: ConfigMap
 metadata:
   labels:
`
	e.diff(1, fmt.Sprintf("--- resourceVersion %s: configmap/settings -n %s (resourceVersion %s)\n+++ now: configmap/settings -n %[2]s (resourceVersion %[4]s)\n%[5]s",
		v1.ResourceVersion, e.ns, v1.ResourceVersion, v2.ResourceVersion, hunk),
		"diff", "cm/settings", "-n", e.ns, "--at", v1.ResourceVersion)
	at := then.UTC().Format(time.RFC3339Nano)
	e.diff(1, fmt.Sprintf("--- %s: configmap/settings -n %s (resourceVersion %s)\n+++ resourceVersion %s: configmap/settings -n %[2]s (resourceVersion %[4]s)\n%s",
		then.UTC().Format(time.RFC3339), e.ns, v1.ResourceVersion, v2.ResourceVersion, hunk),
		"diff", "configmap", "settings", "-n", e.ns, "--at", at, "--at", v2.ResourceVersion)
	e.diff(0, "", "diff", "cm/settings", "-n", e.ns, "--at", v1.ResourceVersion, "--ignore", "data.mode")
	e.diff(0, "", "diff", "cm/settings", "-n", e.ns, "--at", v1.ResourceVersion, "--ignore", "{.data}")

	// Every config map of the namespace: the change, and one added since.
	out, errOut, code := e.run("diff", "cm", "-n", e.ns, "--at", at)
	if code != 1 || errOut != "" || !strings.HasPrefix(out, "only in now: configmap/added -n "+e.ns+"\n--- ") || !strings.HasSuffix(out, hunk) {
		t.Errorf("diff cm --at: exit %d, stderr %q\n%s", code, errOut, out)
	}
	e.diff(0, "", "diff", "cm", "-n", e.ns, "--at", at, "-l", "team=a", "--ignore", "data")
}

// diff runs a diff and checks its exit code and what it printed: want on
// stdout, nothing on stderr.
func (e *env) diff(code int, want string, args ...string) {
	e.t.Helper()
	out, errOut, got := e.run(args...)
	if got != code || out != want || errOut != "" {
		e.t.Errorf("%s: exit %d, want %d; stderr %q\n%s\nwant:\n%s", strings.Join(args, " "), got, code, errOut, out, want)
	}
}

// TestDiffStatusAndIgnore: status is left out unless --include-status;
// --ignore takes a list index.
func TestDiffStatusAndIgnore(t *testing.T) {
	e := newEnv(t)
	e.serve("pods", "--record")
	ctx := context.Background()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:1"}}}}
	v1, err := e.cs.CoreV1().Pods(e.ns).Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e.recordedAs("pod/web", v1.ResourceVersion)
	v1.Status.Message = "warming up"
	v2, err := e.cs.CoreV1().Pods(e.ns).UpdateStatus(ctx, v1, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e.recordedAs("pod/web", v2.ResourceVersion)

	e.diff(0, "", "diff", "pod/web", "-n", e.ns, "--at", v1.ResourceVersion)
	out, errOut, code := e.run("diff", "pod/web", "-n", e.ns, "--at", v1.ResourceVersion, "--include-status")
	if code != 1 || errOut != "" || !strings.Contains(out, "\n+  message: warming up\n") || strings.Count(out, "\n+") != 2 {
		t.Errorf("--include-status: exit %d, stderr %q\n%s", code, errOut, out)
	}

	v2.Spec.Containers[0].Image = "app:2"
	v3, err := e.cs.CoreV1().Pods(e.ns).Update(ctx, v2, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e.recordedAs("pod/web", v3.ResourceVersion)
	out, errOut, code = e.run("diff", "pod/web", "-n", e.ns, "--at", v1.ResourceVersion)
	if code != 1 || errOut != "" || !strings.Contains(out, "\n-  - image: app:1\n+  - image: app:2\n") {
		t.Errorf("an image changed: exit %d, stderr %q\n%s", code, errOut, out)
	}
	e.diff(0, "", "diff", "pod/web", "-n", e.ns, "--at", v1.ResourceVersion, "--ignore", "spec.containers[0].image")
	e.diff(0, "", "diff", "pod/web", "-n", e.ns, "--at", v1.ResourceVersion, "--ignore", "spec.containers[*].image")
}

// TestDiffBadInput: each mistake is one `error: ...` line and exit 2.
func TestDiffBadInput(t *testing.T) {
	e := newEnv(t)
	e.serve("configmaps", "--record")
	last := e.createCM("first", nil, "k", "1")
	e.recorded("first", last.ResourceVersion)
	history := e.historyFile()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"diff", "nosuchkind/x", "--at", "1h"}, `error: the server doesn't have a resource type "nosuchkind"`},
		{[]string{"diff", "cm/never", "-n", e.ns, "--at", last.ResourceVersion}, `error: configmaps "never" was never recorded (the history ` + history + ` holds no revision of it)`},
		{[]string{"diff", "cm/first", "-n", e.ns, "--at", "1h", "--ignore", "spec.containers[x]"}, `error: --ignore: invalid field path "spec.containers[x]": [x] after "spec.containers": want an index ([0]), every element ([*]) or a quoted key (['a.b'])`},
		{[]string{"diff", "cm/first", "-n", e.ns, "--at", "2020-01-01T00:00:00Z"}, "error: --at 2020-01-01T00:00:00Z: the record begins at "},
		{[]string{"diff", "cm/first", "-n", e.ns, "--at", "1"}, "error: configmaps at resourceVersion 1: the record begins at "},
		{[]string{"diff", "cm/first", "-n", e.ns, "--at", "1h", "--context", "nowhere"}, `error: reading the kubeconfig: context "nowhere" does not exist`},
		{[]string{"diff", "cm/first", "-n", e.ns, "--context", "nowhere,elsewhere"}, `error: context "nowhere" not found in the kubeconfig; its contexts are: `},
		{[]string{"diff", "cm/first", "-n", e.ns}, "error: diff compares two states: give --at T (compared with now), --at T1 --at T2, or --context A,B"},
		{[]string{"diff", "cm/first", "--at", "1h", "--at", "2h", "--at", "3h"}, "error: diff compares two moments: give --at at most twice"},
		{[]string{"diff", "cm/first", "--at", "yesterday"}, `error: invalid --at "yesterday": want a time`},
		{[]string{"diff", "cm,secrets", "--at", "1h"}, "error: diff compares one kind: give KIND, KIND/NAME or KIND NAME..."},
		{[]string{"diff", "secrets", "-n", e.ns, "--at", last.ResourceVersion}, "error: secrets: the history " + history + " holds none (serve secrets --record records them)"},
		{[]string{"diff", "cm/first", "--at", "1h", "--history-db", filepath.Join(t.TempDir(), "none.db")}, "error: "},
		{[]string{"diff", "cm/first", "--at", "1h", "--no-such-flag"}, "error: unknown flag: --no-such-flag"},
	}
	for _, tc := range tests {
		_, errOut, code := e.run(tc.args...)
		if code != 2 || !strings.HasPrefix(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q; want 2 and one line starting %q", strings.Join(tc.args, " "), code, errOut, tc.want)
		}
	}
}
