package history

import (
	"context"
	"maps"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// recordTimeline records, in the test's namespace, Deployment old (there
// before recording: INITIAL) and Deployment web: created, scaled (a spec
// change), given a status, the subject of a Warning Event, then deleted.
// It returns the span to draw: from the second before web's creation to
// the second after its deletion.
func (e *env) recordTimeline() (since, until time.Time) {
	e.t.Helper()
	ctx := context.Background()
	deploys := e.cs.AppsV1().Deployments(e.ns)
	e.applyDeployment("old")
	e.serve("deployments.apps,events", "--record")
	e.recordedAs("deployments/old", "INITIAL")

	since = time.Now()
	e.applyDeployment("web")
	e.recordedAs("deployments/web", "ADDED")
	// Each change waits for the one before to be recorded: a column of
	// the drawing shows one mark.
	scaled, err := deploys.Patch(ctx, "web", types.MergePatchType, []byte(`{"spec":{"replicas":3}}`), metav1.PatchOptions{FieldManager: "scaler"})
	if err != nil {
		e.t.Fatal(err)
	}
	e.recordedAs("deployments/web", scaled.ResourceVersion)
	status := e.updateStatus(deploys, "web", 1)
	e.recordedAs("deployments/web", status.ResourceVersion)
	ev := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "web.warning"},
		InvolvedObject: corev1.ObjectReference{Kind: "Deployment", APIVersion: "apps/v1", Namespace: e.ns, Name: "web"},
		Type:           corev1.EventTypeWarning, Reason: "FailedCreate", Message: "quota exceeded",
		Source: corev1.EventSource{Component: "test"}, FirstTimestamp: metav1.Now(), LastTimestamp: metav1.Now(), Count: 1,
	}
	if _, err := e.cs.CoreV1().Events(e.ns).Create(ctx, ev, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	e.recordedAs("events/web.warning", "ADDED")
	if err := deploys.Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		e.t.Fatal(err)
	}
	e.recordedAs("deployments/web", "DELETED")
	return since, time.Now().Add(time.Second)
}

// lanes reads plain timeline output as each lane's glyphs, spaces left
// out, by object name.
func lanes(out string) map[string]string {
	got := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, "  "); ok && !strings.HasPrefix(rest, " ") {
			name, glyphs, _ := strings.Cut(rest, " ")
			got[name] = strings.ReplaceAll(glyphs, " ", "")
		}
	}
	return got
}

// TestTimelinePlain: piped, timeline draws each recorded change of a
// namespace's Deployments as its mark, in order, under the group of the
// kind and namespace, with the Warning Event about one listed.
func TestTimelinePlain(t *testing.T) {
	e := newEnv(t)
	since, until := e.recordTimeline()
	out := e.mustRun("timeline", "deployments", "-n", e.ns, "--since", since.UTC().Format(time.RFC3339Nano), "--until", until.UTC().Format(time.RFC3339Nano), "--width", "2000")
	got := lanes(out)
	if got["web"] != "+*.!x" {
		t.Errorf("lane web %q, want +*.!x (created, scaled, status, Warning, deleted):\n%s", got["web"], out)
	}
	if _, ok := got["old"]; ok {
		t.Errorf("lane old drawn, but it did not change in the span:\n%s", out)
	}
	for _, want := range []string{"\ndeployments.apps in " + e.ns + "\n", "FailedCreate  quota exceeded", "legend:  + create  o initial  * spec change  . status change"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	// The last ten minutes, as one span for all three views.
	span := []string{"-n", e.ns, "--since", until.Add(-10 * time.Minute).UTC().Format(time.RFC3339Nano), "--until", until.UTC().Format(time.RFC3339Nano)}
	if two := lanes(e.mustRun(append([]string{"timeline", "deployments", "events"}, span...)...)); two["web"] == "" {
		t.Errorf("timeline deployments events: no lane of web in %v", two)
	}
	// With no KIND, timeline draws every kind recorded but Events (here
	// Deployments and the Namespaces the daemon also records), lane for
	// lane as with those named.
	named := lanes(e.mustRun(append([]string{"timeline", "deployments", "namespaces"}, span...)...))
	all := lanes(e.mustRun(append([]string{"timeline"}, span...)...))
	if all["old"] != "o" || all["web"] == "" || !maps.Equal(all, named) {
		t.Errorf("timeline of every recorded kind: lanes %q; want old's initial mark o, web's, and the lanes of timeline deployments namespaces: %q", all, named)
	}
}

// TestTimelineBadInput: each mistake is one `error: ...` line and a
// non-zero exit.
func TestTimelineBadInput(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"timeline", "nosuchkind"}, `error: the server doesn't have a resource type "nosuchkind"`},
		{[]string{"timeline", "pods", "--since", "yesterday"}, `error: invalid --since "yesterday": want a duration ago (2h) or a time (2026-12-04T07:00:00Z)`},
		{[]string{"timeline", "pods", "--since", "1h", "--until", "2h"}, "error: --until "},
		{[]string{"timeline", "pods", "--context", "nope"}, "error: reading the kubeconfig: invalid configuration: context was not found for specified context: nope"},
		{[]string{"timeline", "pods", "--context", "nope,other"}, `error: context "nope" not found in the kubeconfig`},
		{[]string{"timeline", "pods", "--interactive", "maybe"}, `error: invalid --interactive "maybe": want auto, true or false`},
		{[]string{"timeline", "pods"}, "error: no history at "},
	} {
		_, errOut, code := e.run(tc.args...)
		if code == 0 || !strings.HasPrefix(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q; want one line starting %q", strings.Join(tc.args, " "), code, errOut, tc.want)
		}
	}
}
