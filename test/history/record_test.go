package history

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestGetAtPrintsWhatGetPrinted captures what kubectl get printed (which
// get prints byte for byte: the e2e tests), changes the config maps, and
// compares get --at that moment with it, byte for byte, in several
// formats. kubectl, not this plugin's race-detecting test build, which
// takes over a second to start: an AGE cell is in seconds, and the capture
// must fall within one.
func TestGetAtPrintsWhatGetPrinted(t *testing.T) {
	e := newEnv(t)
	e.serve("configmaps", "--record")
	e.createCM("alpha", map[string]string{"tier": "web"}, "k", "1")
	e.createCM("beta", map[string]string{"tier": "db"}, "k", "1")
	last := e.createCM("gamma", nil, "k", "1")
	e.recorded("gamma", last.ResourceVersion)

	formats := [][]string{{}, {"-l", "tier=web"}, {"-o", "yaml"}, {"-o", "name"}, {"--show-labels"}}
	captured := make([]string, len(formats))
	at := make([]time.Time, len(formats))
	for i, f := range formats {
		for { // a get within one second: an AGE cell reads the same at any instant of it
			at[i] = time.Now()
			captured[i] = e.kubectl(append([]string{"get", "cm", "-n", e.ns}, f...)...)
			if time.Now().Truncate(time.Second).Equal(at[i].Truncate(time.Second)) {
				break
			}
		}
	}
	if !strings.Contains(captured[0], "alpha") || !strings.Contains(captured[0], "AGE") {
		t.Fatalf("get printed:\n%s", captured[0])
	}

	e.updateCM("alpha", "editor", "k", "2")
	e.deleteCM("beta")
	last = e.createCM("delta", nil, "k", "1")
	e.recorded("delta", last.ResourceVersion)

	for i, f := range formats {
		args := append([]string{"get", "cm", "-n", e.ns, "--at", at[i].UTC().Format(time.RFC3339Nano)}, f...)
		if got := e.mustRun(args...); got != captured[i] {
			t.Errorf("%s:\n%s\nget printed then:\n%s", strings.Join(args, " "), got, captured[i])
		}
	}
	// Named objects, and one that did not exist then.
	out, errOut, code := e.run("get", "cm", "alpha", "delta", "-n", e.ns, "--at", at[0].UTC().Format(time.RFC3339Nano))
	if code != 1 || !strings.Contains(out, "alpha") || strings.TrimSpace(errOut) != `Error from server (NotFound): configmaps "delta" not found` {
		t.Errorf("get alpha delta --at: exit %d\n%s\n%s", code, out, errOut)
	}
	// A kind never recorded beside one recorded: the one printed, the
	// other reported after it, as get reports a kind it cannot list.
	out, errOut, code = e.run("get", "cm,podtemplates", "-n", e.ns, "--at", at[0].UTC().Format(time.RFC3339Nano), "-o", "name")
	if code != 1 || out != "configmap/alpha\nconfigmap/beta\nconfigmap/gamma\n" ||
		!strings.HasPrefix(errOut, "error: podtemplates: the history ") || !strings.HasSuffix(errOut, " holds none (serve podtemplates --record records them)\n") {
		t.Errorf("get cm,podtemplates --at: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestHistoryOfAnObject lists revisions with their managers, diffs and one
// revision's object (as YAML, and as JSON, byte for byte kubectl's).
func TestHistoryOfAnObject(t *testing.T) {
	e := newEnv(t)
	e.serve("configmaps", "--record")
	created := e.createCM("settings", nil, "mode", "fast")
	first := e.updateCM("settings", "tuner", "mode", "safe")
	second := e.updateCM("settings", "operator", "limit", "10")
	e.recorded("settings", second.ResourceVersion)
	asJSON := e.kubectl("get", "cm", "settings", "-n", e.ns, "-o", "json")
	e.deleteCM("settings")
	out := e.recorded("settings", "DELETED")

	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := []string{
		"REVISION TIME OPERATION MANAGER",
		created.ResourceVersion + " _ ADDED creator",
		first.ResourceVersion + " _ MODIFIED tuner",
		second.ResourceVersion + " _ MODIFIED operator",
		"_ _ DELETED <none>",
	}
	if len(lines) != len(want) {
		t.Fatalf("history:\n%s", out)
	}
	for i, line := range lines {
		f := strings.Fields(line)
		if i > 0 {
			f[1] = "_"
			if i == 4 {
				f[0] = "_"
			}
		}
		if got := strings.Join(f, " "); got != want[i] {
			t.Errorf("line %d: %q, want %q", i, got, want[i])
		}
	}

	if apart := e.mustRun("history", "configmaps", "settings", "-n", e.ns); apart != out {
		t.Errorf("history configmaps settings:\n%s\nwant what history cm/settings printed:\n%s", apart, out)
	}

	diff := e.mustRun("history", "cm/settings", "-n", e.ns, "--diff")
	for _, s := range []string{
		"ADDED configmaps/settings (resourceVersion " + created.ResourceVersion + ")",
		"by tuner\n", "-  mode: fast\n", "+  mode: safe\n", "+  limit: \"10\"\n", "DELETED configmaps/settings",
	} {
		if !strings.Contains(diff, s) {
			t.Errorf("history --diff lacks %q:\n%s", s, diff)
		}
	}
	obj := e.mustRun("history", "cm/settings", "-n", e.ns, "--revision", first.ResourceVersion)
	if !strings.Contains(obj, "mode: safe") || !strings.Contains(obj, "resourceVersion: \""+first.ResourceVersion+"\"") || strings.Contains(obj, "managedFields") {
		t.Errorf("history --revision %s:\n%s", first.ResourceVersion, obj)
	}
	// -o json: what kubectl get -o json printed of that revision, byte for byte.
	if got := e.mustRun("history", "cm/settings", "-n", e.ns, "--revision", second.ResourceVersion, "-o", "json"); got != asJSON {
		t.Errorf("history --revision %s -o json:\n%s\nwant what kubectl get -o json printed then:\n%s", second.ResourceVersion, got, asJSON)
	}
}

// TestHistoryManagerOfAScale: a change through a subresource (kubectl
// scale's /scale) is its manager's, though the API server writes that
// entry without a time and the creator's entry, which lost the replicas,
// changes too; so is a second scale, which changes no entry at all; an
// update that takes the replicas back is its writer's.
func TestHistoryManagerOfAScale(t *testing.T) {
	e := newEnv(t)
	e.serve("deployments", "--record")
	ctx := context.Background()
	labels := map[string]string{"app": "web"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
			},
		},
	}
	deploys := e.cs.AppsV1().Deployments(e.ns)
	if _, err := deploys.Create(ctx, d, metav1.CreateOptions{FieldManager: "creator"}); err != nil {
		t.Fatal(err)
	}
	scale := &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: e.ns}, Spec: autoscalingv1.ScaleSpec{Replicas: 3}}
	scaled, err := deploys.UpdateScale(ctx, "web", scale, metav1.UpdateOptions{FieldManager: "scaler"})
	if err != nil {
		t.Fatal(err)
	}
	scale.Spec.Replicas = 4 // no resourceVersion: no conflict with another writer
	again, err := deploys.UpdateScale(ctx, "web", scale, metav1.UpdateOptions{FieldManager: "scaler"})
	if err != nil {
		t.Fatal(err)
	}
	edited, err := deploys.Patch(ctx, "web", types.MergePatchType, []byte(`{"spec":{"replicas":5}}`), metav1.PatchOptions{FieldManager: "editor"})
	if err != nil {
		t.Fatal(err)
	}
	out := e.recordedAs("deployments/web", edited.ResourceVersion)
	for rv, want := range map[string]string{scaled.ResourceVersion: "scaler", again.ResourceVersion: "scaler", edited.ResourceVersion: "editor"} {
		if got := managerOf(out, rv); got != want {
			t.Errorf("revision %s is %q's, want %s's:\n%s", rv, got, want, out)
		}
	}
}

// managerOf is the MANAGER of revision rv in history's table out.
func managerOf(out, rv string) string {
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) == 4 && f[0] == rv {
			return f[3]
		}
	}
	return ""
}
