package history

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-reflect/kubectl-reflect/test/testkit"
)

// blameLine is a line of blame's text output: its annotation's columns
// and the YAML line.
type blameLine struct {
	rv, time, manager, operation, text string
}

// blameLines runs blame and splits its lines; want is a line's YAML text,
// trimmed, to find.
func (e *env) blameLines(args ...string) []blameLine {
	e.t.Helper()
	out := e.mustRun(append([]string{"blame"}, args...)...)
	var lines []blameLine
	for line := range strings.SplitSeq(strings.TrimSuffix(out, "\n"), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			e.t.Fatalf("blame printed a line of %d fields: %q\n%s", len(f), line, out)
		}
		l := blameLine{rv: f[0], time: f[1], manager: f[2], operation: f[3], text: strings.Join(f[4:], " ")}
		if l.time == "before" { // "before recording"
			l.time, l.manager, l.operation, l.text = "before recording", f[3], f[4], strings.Join(f[5:], " ")
		}
		lines = append(lines, l)
	}
	return lines
}

// find is the line of lines whose YAML text is text.
func (e *env) find(lines []blameLine, text string) blameLine {
	e.t.Helper()
	for _, l := range lines {
		if l.text == text {
			return l
		}
	}
	e.t.Fatalf("blame printed no line %q: %v", text, lines)
	return blameLine{}
}

// fieldLog is blame --field's JSON.
type fieldLog struct {
	Field   string `json:"field"`
	Entries []struct {
		Value, Previous json.RawMessage
		Deleted         bool
		ResourceVersion uint64
		Op, Manager     string
		Operation       string
		Subresource     string
	} `json:"entries"`
}

func (e *env) fieldLog(args ...string) fieldLog {
	e.t.Helper()
	var log fieldLog
	out := e.mustRun(append([]string{"blame", "-o", "json"}, args...)...)
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		e.t.Fatalf("blame -o json: %v\n%s", err, out)
	}
	return log
}

// editor writes a script that kubectl edit runs as EDITOR: it edits the
// file it is given with sed's expression.
func (e *env) editor(expression string) string {
	e.t.Helper()
	path := filepath.Join(e.t.TempDir(), "editor.sh")
	script := fmt.Sprintf("#!/bin/sh\nsed -i '%s' \"$1\"\n", expression)
	if err := os.WriteFile(path, []byte(script), 0o700); err != nil {
		e.t.Fatal(err)
	}
	return path
}

// rvOf is an object's resourceVersion now.
func (e *env) rvOf(object string) string {
	e.t.Helper()
	return strings.TrimSpace(e.kubectl("get", object, "-n", e.ns, "-o", "jsonpath={.metadata.resourceVersion}"))
}

// TestBlame: a Deployment applied, scaled, patched, edited, given a status
// by its controller and applied again is blamed line by line on the right
// manager and operation: spec.replicas set by the apply, then by kubectl
// scale, then by the apply again, and the image by the apply, kubectl edit
// and the apply again (it puts back what the manifest says): fields that
// changed owner; --field lists each value in order; --at blames a past state; once the
// Deployment is deleted its last state is blamed and the log ends with
// the deletion.
func TestBlame(t *testing.T) {
	e := newEnv(t)
	e.serve("deployments", "--record")
	e.applyDeployment("web")
	created := e.rvOf("deploy/web")
	e.kubectl("scale", "deploy/web", "-n", e.ns, "--replicas=3")
	scaled := e.rvOf("deploy/web")
	e.kubectl("patch", "deploy/web", "-n", e.ns, "-p", `{"spec":{"template":{"metadata":{"annotations":{"team":"payments"}}}}}`)
	patched := e.rvOf("deploy/web")
	edit := e.cmd(kubectlBinary, "edit", "deploy/web", "-n", e.ns)
	edit.Env = append(edit.Env, "EDITOR="+e.editor("s|image: nginx$|image: nginx:1.27|; s|imagePullPolicy: Always|imagePullPolicy: IfNotPresent|"))
	if out, errOut, code := testkit.Run(t, edit); code != 0 {
		t.Fatalf("kubectl edit: exit %d\n%s%s", code, out, errOut)
	}
	edited := e.rvOf("deploy/web")
	status := e.updateStatus(e.cs.AppsV1().Deployments(e.ns), "web", 1)
	e.applyReplicas("web", 5)
	reapplied := e.rvOf("deploy/web")
	e.recordedAs("deployments/web", reapplied)

	lines := e.blameLines("deploy/web", "-n", e.ns)
	for _, tc := range []struct{ text, rv, manager, operation string }{
		{"apiVersion: apps/v1", created, "kubectl-client-side-apply", "Update"},
		{"replicas: 5", reapplied, "kubectl-client-side-apply", "Update"},
		{"team: payments", patched, "kubectl-patch", "Update"},
		{"- image: nginx", reapplied, "kubectl-client-side-apply", "Update"},
		{"imagePullPolicy: IfNotPresent", edited, "kubectl-edit", "Update"},
		{"message: step 1", status.ResourceVersion, controller, "Update/status"},
		{"name: web", created, "kubectl-client-side-apply", "Update"},
	} {
		if l := e.find(lines, tc.text); l.rv != tc.rv || l.manager != tc.manager || l.operation != tc.operation {
			t.Errorf("%q blamed on %s %s %s, want %s %s %s", tc.text, l.rv, l.manager, l.operation, tc.rv, tc.manager, tc.operation)
		}
	}

	log := e.fieldLog("deploy/web", "-n", e.ns, "--field", "spec.replicas")
	want := []string{reapplied + " 5 3 kubectl-client-side-apply Update", scaled + " 3 1 kubectl Update/scale", created + " 1  kubectl-client-side-apply Update"}
	checkLog(t, log, want)
	text := e.mustRun("blame", "deploy/web", "-n", e.ns, "--field", "{.spec.replicas}")
	if rows := strings.Split(strings.TrimSpace(text), "\n"); len(rows) != 4 || strings.Join(strings.Fields(rows[0]), " ") != "VALUE PREVIOUS MANAGER OPERATION TIME RESOURCEVERSION" ||
		!strings.HasPrefix(strings.Join(strings.Fields(rows[3]), " "), "1 <none> kubectl-client-side-apply Update ") {
		t.Errorf("blame --field {.spec.replicas}:\n%s", text)
	}
	image := e.fieldLog("deploy/web", "-n", e.ns, "--field", "spec.template.spec.containers[0].image")
	checkLog(t, image, []string{reapplied + ` "nginx" "nginx:1.27" kubectl-client-side-apply Update`,
		edited + ` "nginx:1.27" "nginx" kubectl-edit Update`, created + ` "nginx"  kubectl-client-side-apply Update`})

	if l := e.find(e.blameLines("deploy/web", "-n", e.ns, "--at", scaled), "replicas: 3"); l.rv != scaled || l.manager != "kubectl" || l.operation != "Update/scale" {
		t.Errorf("blame --at %s: replicas: 3 blamed on %s %s", scaled, l.rv, l.manager)
	}

	e.blameDeleted()
}

// blameDeleted deletes Deployment web and checks that blame prints its
// last state, with a note, and its field's log the deletion first.
func (e *env) blameDeleted() {
	e.t.Helper()
	t := e.t
	if err := e.cs.AppsV1().Deployments(e.ns).Delete(context.Background(), "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.recordedAs("deployments/web", "DELETED")
	out, errOut, code := e.run("blame", "deploy/web", "-n", e.ns)
	if code != 0 || !strings.Contains(out, "imagePullPolicy: IfNotPresent") || !strings.HasPrefix(errOut, `note: deployments.apps "web" was deleted at `) {
		t.Errorf("blame of a deleted deployment: exit %d\n%s%s", code, out, errOut)
	}
	deleted := e.fieldLog("deploy/web", "-n", e.ns, "--field", "spec.replicas")
	if len(deleted.Entries) != 4 || !deleted.Entries[0].Deleted || string(deleted.Entries[0].Previous) != "5" || deleted.Entries[0].Value != nil {
		t.Errorf("blame --field of a deleted deployment: %+v", deleted.Entries)
	}
}

// checkLog compares a field's log, entry by entry, with want: "RV VALUE
// PREVIOUS MANAGER OPERATION[/SUBRESOURCE]".
func checkLog(t *testing.T, log fieldLog, want []string) {
	t.Helper()
	var got []string
	for _, e := range log.Entries {
		op := e.Operation
		if e.Subresource != "" {
			op += "/" + e.Subresource
		}
		got = append(got, fmt.Sprintf("%d %s %s %s %s", e.ResourceVersion, e.Value, e.Previous, e.Manager, op))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("blame --field %s:\n%s\nwant:\n%s", log.Field, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestBlameCustomResource: an object of a CRD, there before recording
// began, is blamed INITIAL (before recording) but for the field patched
// since; its field's log starts with the value found.
func TestBlameCustomResource(t *testing.T) {
	e := newEnv(t)
	group := "blame." + e.ns + ".example.com"
	e.widgetCRD(group)
	e.apply("apiVersion: " + group + "/v1\nkind: Widget\nmetadata:\n  name: gear\n  namespace: " + e.ns + "\nspec:\n  teeth: 12\n  color: red\n")
	found := e.rvOf("widgets." + group + "/gear")
	e.serve("widgets."+group, "--record")
	e.recordedAs("widgets."+group+"/gear", found)
	e.kubectl("patch", "widgets."+group, "gear", "-n", e.ns, "--type=merge", "-p", `{"spec":{"teeth":14}}`)
	patched := e.rvOf("widgets." + group + "/gear")
	e.recordedAs("widgets."+group+"/gear", patched)

	lines := e.blameLines("widget."+group+"/gear", "-n", e.ns)
	if l := e.find(lines, "teeth: 14"); l.rv != patched || l.manager != "kubectl-patch" || l.operation != "Update" {
		t.Errorf("teeth: 14 blamed on %+v, want %s kubectl-patch Update", l, patched)
	}
	if l := e.find(lines, "color: red"); l.rv != found || l.manager != "INITIAL" || l.time != "before recording" {
		t.Errorf("color: red blamed on %+v, want %s INITIAL before recording", l, found)
	}
	checkLog(t, e.fieldLog("widgets."+group+"/gear", "-n", e.ns, "--field", "spec.teeth"),
		[]string{patched + " 14 12 kubectl-patch Update", found + " 12   "})
	if log := e.fieldLog("widgets."+group+"/gear", "-n", e.ns, "--field", "spec.teeth"); log.Entries[1].Op != "INITIAL" {
		t.Errorf("the value found when recording began: op %q, want INITIAL", log.Entries[1].Op)
	}
}

// TestBlameBadInput: each mistake is one `error: ...` line and a non-zero
// exit.
func TestBlameBadInput(t *testing.T) {
	e := newEnv(t)
	e.serve("configmaps", "--record")
	cm := e.createCM("settings", nil, "mode", "fast")
	e.recorded("settings", cm.ResourceVersion)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"blame", "gizmos/x"}, `error: the server doesn't have a resource type "gizmos"`},
		{[]string{"blame", "cm/never"}, `error: configmaps "never": no revision recorded`},
		{[]string{"blame", "secret/x"}, "error: secrets: the history "},
		{[]string{"blame", "cm/settings", "--field", "data..mode"}, `error: invalid field path "data..mode": an empty key after "data."`},
		{[]string{"blame", "cm/settings", "--field", "{.items[*].data}"}, `error: invalid field path "{.items[*].data}": [*] names every element, and a field's log follows one field: name one ([0], ['key'])`},
		{[]string{"blame", "cm/settings", "--at", "2000-01-01T00:00:00Z"}, "error: --at 2000-01-01T00:00:00Z: the record begins at "},
		{[]string{"blame", "cm/settings", "--at", "yesterday"}, `error: invalid --at "yesterday": `},
		{[]string{"blame", "cm/settings", "--at", "1"}, `error: configmaps "settings" has no revision recorded by --at 1: its first is at resourceVersion ` + cm.ResourceVersion},
		{[]string{"blame", "cm/settings", "--context", "nowhere"}, `error: reading the kubeconfig: context "nowhere" does not exist`},
		{[]string{"blame", "cm/settings", "-o", "yaml"}, `error: invalid -o "yaml": blame prints text, or json`},
		{[]string{"blame", "cm"}, "error: blame reads one object: give KIND/NAME (or KIND NAME)"},
	} {
		tc.args = append(tc.args, "-n", e.ns)
		_, errOut, code := e.run(tc.args...)
		if code == 0 || !strings.HasPrefix(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q; want one line starting %q", strings.Join(tc.args, " "), code, errOut, tc.want)
		}
	}
}
