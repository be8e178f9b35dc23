package statusview

import (
	"strings"
	"testing"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/daemon"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/history/recording"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/manager"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/serve"
)

// TestStatusPrint: serve status's tables, the controllers' only when some
// run, a lag as a short duration.
func TestStatusPrint(t *testing.T) {
	info := daemon.Info{PID: 42, Server: "https://127.0.0.1:1", Started: time.Date(2026, 12, 3, 6, 0, 0, 0, time.UTC)}
	st := daemon.Status{Resources: []serve.ResourceStatus{
		{Resource: "configmaps", Objects: 3, ResourceVersion: "812", Watchers: 2, EventsSent: 9, LagSeconds: 0.0032},
		{Resource: "secrets", Namespace: "web", Objects: 1, ResourceVersion: "800"},
	}}
	var b strings.Builder
	if err := Print(&b, st, info, "/run/x.kubeconfig"); err != nil {
		t.Fatal(err)
	}
	want := "Daemon pid 42 at https://127.0.0.1:1 since 2026-12-03T06:00:00Z\nkubeconfig: /run/x.kubeconfig\n\n" +
		"RESOURCE         OBJECTS   RESOURCEVERSION   WATCHERS   EVENTS SENT   LAG\n" +
		"configmaps       3         812               2          9             3.2ms\n" +
		"secrets -n web   1         800               0          0             0s\n"
	if got := b.String(); got != want {
		t.Errorf("printed\n%s\nwant\n%s", got, want)
	}
	st.Controllers = []manager.ControllerStatus{{Name: "mirror", Ready: true, Reconciles: 5}}
	b.Reset()
	if err := Print(&b, st, info, "k"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(b.String(), "\nCONTROLLER   READY   RECONCILES\nmirror       true    5\n") {
		t.Errorf("with a controller:\n%s", b.String())
	}
}

// TestStatusPrintRecording: a recording daemon's status says where it
// records and what (every kind: how many; the kinds given: which), what
// the API server refused it, and which resource is recorded.
func TestStatusPrintRecording(t *testing.T) {
	info := daemon.Info{PID: 42, Server: "https://127.0.0.1:1", Started: time.Date(2026, 12, 3, 6, 0, 0, 0, time.UTC), History: "/h.db",
		Recorded: []string{"configmaps", "leases.coordination.k8s.io"}, RecordsAll: true, Refused: []string{"clusterroles.rbac.authorization.k8s.io", "secrets"}}
	st := daemon.Status{Resources: []serve.ResourceStatus{
		{Resource: "configmaps", Objects: 3, ResourceVersion: "812"},
		{Resource: "leases.coordination.k8s.io", Objects: 1, ResourceVersion: "800"},
		{Resource: "secrets", Namespace: "web", Objects: 1, ResourceVersion: "800"},
	}}
	var b strings.Builder
	if err := Print(&b, st, info, "/run/x.kubeconfig"); err != nil {
		t.Fatal(err)
	}
	want := "Daemon pid 42 at https://127.0.0.1:1 since 2026-12-03T06:00:00Z\nkubeconfig: /run/x.kubeconfig\n" +
		"Recording to /h.db: every kind the user may list and watch (2 now)\n" +
		"Not recording what the user may not list and watch (403): clusterroles.rbac.authorization.k8s.io, secrets\n\n" +
		"RESOURCE                     OBJECTS   RESOURCEVERSION   WATCHERS   EVENTS SENT   LAG   RECORDED\n" +
		"configmaps                   3         812               0          0             0s    yes\n" +
		"leases.coordination.k8s.io   1         800               0          0             0s    yes\n" +
		"secrets -n web               1         800               0          0             0s    no\n"
	if got := b.String(); got != want {
		t.Errorf("printed\n%s\nwant\n%s", got, want)
	}
	info.RecordsAll, info.Refused, info.Recorded = false, nil, []string{"configmaps", "namespaces"}
	b.Reset()
	if err := Print(&b, st, info, "k"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\nRecording to /h.db: configmaps, namespaces\n\nRESOURCE") {
		t.Errorf("recording the kinds given:\n%s", b.String())
	}
}

// TestStatusPrintHistory: a recording daemon's status ends with where the
// record begins and why, its size against the cap, and what each kind
// wrote in the last hour, aligned.
func TestStatusPrintHistory(t *testing.T) {
	info := daemon.Info{PID: 42, Server: "https://127.0.0.1:1", Started: time.Date(2026, 12, 3, 6, 0, 0, 0, time.UTC), History: "/h.db", Recorded: []string{"configmaps"}}
	st := daemon.Status{Resources: []serve.ResourceStatus{{Resource: "configmaps", Objects: 3, ResourceVersion: "812"}},
		History: &recording.Status{Location: "/h.db", Begins: time.Date(2026, 12, 3, 5, 0, 0, 0, time.UTC), BeginsRV: 700,
			Why: "older revisions pruned to stay under 1Gi", Size: 3 << 20, FileSize: 4 << 20, MaxSize: 1 << 30, Retention: 168 * time.Hour,
			Since: time.Date(2026, 12, 3, 5, 30, 0, 0, time.UTC),
			Usage: []history.Usage{{Resource: "configmaps.v1.", Revisions: 12, Bytes: 3000}, {Resource: "leases.v1.coordination.k8s.io", Revisions: 40, Bytes: 900}}}}
	var b strings.Builder
	if err := Print(&b, st, info, "k"); err != nil {
		t.Fatal(err)
	}
	want := "\n\nThe record begins at 2026-12-03T05:00:00Z (resourceVersion 700): older revisions pruned to stay under 1Gi\n" +
		"Size: 3.0Mi in use of at most 1Gi (the file: 4.0Mi), kept 168h0m0s\n\n" +
		"Written since 2026-12-03T05:30:00Z (the last hour):\n" +
		"RESOURCE                     REVISIONS   BYTES\n" +
		"configmaps                   12          2.9Ki\n" +
		"leases.coordination.k8s.io   40          900\n" +
		"total                        52          3.8Ki\n"
	if got := b.String(); !strings.HasSuffix(got, want) {
		t.Errorf("printed\n%s\nwant it to end\n%s", got, want)
	}
}
