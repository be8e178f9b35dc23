package blame

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
)

// logged is each entry of Log as "RV MANAGER OPERATION VALUE<-PREVIOUS".
func logged(revs []history.Revision, field string) string {
	p, err := ParseField(field)
	if err != nil {
		panic(err)
	}
	var out []string
	for _, e := range Log(revs, p) {
		who := e.Manager
		if e.Initial() {
			who = "INITIAL"
		}
		value := string(e.Value)
		if e.Deleted {
			value = "<deleted>"
		}
		out = append(out, fmt.Sprintf("%d %s %s %s<-%s", e.RV, who, e.Operation, value, e.Previous))
	}
	return strings.Join(out, "\n")
}

func TestLog(t *testing.T) {
	revs := revisions()
	last := revs[len(revs)-1]
	removed := []byte(strings.Replace(string(last.Object), `"replicas":3,`, "", 1))
	revs = append(revs,
		history.Revision{RV: 16, Op: history.Modified, Manager: "kubectl-edit", Object: removed},
		history.Revision{RV: 17, Op: history.Modified, Manager: "kubectl-edit", Object: last.Object},
		history.Revision{RV: 20, Op: history.Deleted, Object: last.Object},
		history.Revision{RV: 21, Op: history.Added, Manager: "again", Object: deployment(21, 5, "nginx", "", entry("again", "Apply", "", t0))},
	)
	for _, tc := range []struct{ field, want string }{
		{"spec.replicas", `21 again Apply 5<-
20   <deleted><-3
17 kubectl-edit Update 3<-
16 kubectl-edit Update <-3
11 kubectl Update 3<-1
10 kubectl-client-side-apply Update 1<-`},
		{"{.spec.template.spec.containers[0].image}", `21 again Apply "nginx"<-
20   <deleted><-"envoy"
15 kubectl-patch Update "envoy"<-"nginx:1.27"
13 kubectl-edit Update "nginx:1.27"<-"nginx"
10 kubectl-client-side-apply Update "nginx"<-`},
		{"status.message", `20   <deleted><-"ok"
12 kube-controller-manager Update "ok"<-`},
		{"spec.paused", ``},
	} {
		if got := logged(revs, tc.field); got != tc.want {
			t.Errorf("Log %s:\n%s\nwant:\n%s", tc.field, got, tc.want)
		}
	}
}

func TestLogInitial(t *testing.T) {
	revs := revisions()[1:]
	revs[0].Op, revs[0].Manager = history.Initial, ""
	got := logged(revs, "spec.replicas")
	if got != "11 INITIAL  3<-" {
		t.Errorf("Log of a field found at record start:\n%s", got)
	}
}
