package blame

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
)

var t0 = time.Date(2026, 12, 6, 18, 0, 0, 0, time.UTC)

// entry is a managedFields entry.
func entry(manager, operation, subresource string, at time.Time) string {
	sub := ""
	if subresource != "" {
		sub = fmt.Sprintf(`,"subresource":%q`, subresource)
	}
	return fmt.Sprintf(`{"manager":%q,"operation":%q,"apiVersion":"apps/v1","time":%q,"fieldsType":"FieldsV1","fieldsV1":{}%s}`, manager, operation, at.Format(time.RFC3339), sub)
}

// deployment is a Deployment's JSON at rv.
func deployment(rv uint64, replicas int, image string, status string, entries ...string) []byte {
	st := ""
	if status != "" {
		st = fmt.Sprintf(`,"status":{"observedGeneration":1,"message":%q}`, status)
	}
	return fmt.Appendf(nil, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default","uid":"u1","resourceVersion":"%d","managedFields":[%s]},"spec":{"replicas":%d,"template":{"spec":{"containers":[{"name":"web","image":%q,"args":["a","b"]}]}}}%s}`,
		rv, strings.Join(entries, ","), replicas, image, st)
}

// revisions are a Deployment's: applied, scaled, given a status by its
// controller, its image edited, a sidecar inserted before its container.
func revisions() []history.Revision {
	apply := entry("kubectl-client-side-apply", "Update", "", t0)
	scale := entry("kubectl", "Update", "scale", t0.Add(time.Minute))
	status := entry("kube-controller-manager", "Update", "status", t0.Add(2*time.Minute))
	edit := entry("kubectl-edit", "Update", "", t0.Add(3*time.Minute))
	rev := func(rv uint64, op history.Op, manager string, doc []byte) history.Revision {
		return history.Revision{Namespace: "default", Name: "web", RV: rv, Time: t0.Add(time.Duration(rv) * time.Second), Op: op, Manager: manager, Object: doc}
	}
	sidecar := []byte(strings.Replace(string(deployment(15, 3, "nginx:1.27", "ok", apply, scale, status, edit, entry("kubectl-patch", "Update", "", t0.Add(4*time.Minute)))),
		`"containers":[`, `"containers":[{"name":"proxy","image":"envoy"},`, 1))
	return []history.Revision{
		rev(10, history.Added, "kubectl-client-side-apply", deployment(10, 1, "nginx", "", apply)),
		rev(11, history.Modified, "kubectl", deployment(11, 3, "nginx", "", apply, scale)),
		rev(12, history.Modified, "kube-controller-manager", deployment(12, 3, "nginx", "ok", apply, scale, status)),
		rev(13, history.Modified, "kubectl-edit", deployment(13, 3, "nginx:1.27", "ok", apply, scale, status, edit)),
		rev(15, history.Modified, "kubectl-patch", sidecar),
	}
}

// blamed is each line of Blame's answer as "RV MANAGER OPERATION | TEXT".
func blamed(t *testing.T, revs []history.Revision) []string {
	t.Helper()
	lines, err := Blame(revs)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		who := l.Change.Manager
		if l.Change.Initial() {
			who = "INITIAL"
		}
		out[i] = fmt.Sprintf("%d %s %s | %s", l.Change.RV, who, l.Change.Operation, l.Text)
	}
	return out
}

func TestBlame(t *testing.T) {
	got := blamed(t, revisions())
	want := []string{
		"10 kubectl-client-side-apply Update | apiVersion: apps/v1",
		"10 kubectl-client-side-apply Update | kind: Deployment",
		"10 kubectl-client-side-apply Update | metadata:",
		"10 kubectl-client-side-apply Update |   name: web",
		"10 kubectl-client-side-apply Update |   namespace: default",
		`15 kubectl-patch Update |   resourceVersion: "15"`,
		"10 kubectl-client-side-apply Update |   uid: u1",
		"10 kubectl-client-side-apply Update | spec:",
		"11 kubectl Update |   replicas: 3",
		"10 kubectl-client-side-apply Update |   template:",
		"10 kubectl-client-side-apply Update |     spec:",
		"10 kubectl-client-side-apply Update |       containers:",
		"15 kubectl-patch Update |       - image: envoy",
		"15 kubectl-patch Update |         name: proxy",
		"10 kubectl-client-side-apply Update |       - args:",
		"10 kubectl-client-side-apply Update |         - a",
		"10 kubectl-client-side-apply Update |         - b",
		"13 kubectl-edit Update |         image: nginx:1.27",
		"10 kubectl-client-side-apply Update |         name: web",
		"12 kube-controller-manager Update | status:",
		"12 kube-controller-manager Update |   message: ok",
		"12 kube-controller-manager Update |   observedGeneration: 1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Blame:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestBlameInitialAndDeleted(t *testing.T) {
	revs := revisions()[1:] // the record begins at the scale: found as it was
	revs[0].Op, revs[0].Manager = history.Initial, ""
	last := revs[len(revs)-1]
	revs = append(revs, history.Revision{Namespace: "default", Name: "web", RV: 20, Op: history.Deleted, Object: last.Object})
	got := blamed(t, revs)
	for _, w := range []string{"11 INITIAL  | apiVersion: apps/v1", "11 INITIAL  |   replicas: 3", "13 kubectl-edit Update |         image: nginx:1.27", `15 kubectl-patch Update |   resourceVersion: "15"`} {
		if !contains(got, w) {
			t.Errorf("no line %q in:\n%s", w, strings.Join(got, "\n"))
		}
	}
}

func TestBlameRecreated(t *testing.T) {
	revs := revisions()[:3]
	revs = append(revs,
		history.Revision{RV: 20, Op: history.Deleted, Object: revs[2].Object},
		history.Revision{RV: 21, Op: history.Added, Manager: "again", Object: deployment(21, 3, "nginx", "ok", entry("again", "Apply", "", t0))})
	for _, line := range blamed(t, revs) {
		if !strings.HasPrefix(line, "21 again Apply | ") {
			t.Errorf("a line of the object made again not blamed on its creation: %q", line)
		}
	}
}

func contains(lines []string, want string) bool {
	for _, l := range lines {
		if l == want {
			return true
		}
	}
	return false
}
