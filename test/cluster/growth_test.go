package cluster

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
	"github.com/kubectl-reflect/kubectl-reflect/test/testkit"
)

// The idle record's bound (issue 48): under 2 MB an hour for an idle
// cluster of 100 nodes, recording every kind. The cluster here has
// clusterNodes nodes and ten pods each (1,000 pods at 100 nodes); its
// rate is scaled by 100/clusterNodes whole, what does not grow with nodes
// (the controllers' Leases, namespaces, Deployments) included, which
// overstates it.
const (
	idleBound    = 2_000_000 // bytes an hour, for 100 nodes
	clusterNodes = 10
	// idleWindow is how long the record is watched grow: the interval a
	// Lease's renewal alone is kept at (5 minutes), so that about every
	// Lease's kept renewal falls in it once.
	idleWindow = 5 * time.Minute
)

// TestIdleGrowth: the default record (serve --record: every kind, Leases'
// renewals coalesced) of an idle cluster with nodes and pods grows at
// most idleBound an hour scaled to 100 nodes, by what the history counts
// (history.Record.Usage, serve status's table), and serve status shows
// those counts.
func TestIdleGrowth(t *testing.T) {
	nodes, cp := clusterNodes, (*controlplane.ControlPlane)(nil)
	if n, err := strconv.Atoi(os.Getenv("KUBECTL_REFLECT_IDLE_NODES")); err == nil && n > clusterNodes {
		nodes = n // a cluster of its own, by hand: 100 nodes as the issue's
		cp = controlplane.StartForTest(t, controlplane.Options{Scheduler: true, Kwok: &controlplane.KwokOptions{Nodes: n}})
	} else {
		cp = cluster.Get(t)
	}
	cs := kubernetes.NewForConfigOrDie(cp.AdminConfig())
	e := &env{t: t, cp: cp, ns: testkit.Namespace(t, cs), runtime: t.TempDir(), state: t.TempDir(), kubeconfig: cp.AdminKubeconfig(),
		podCols: "custom-columns=NAME:.metadata.name,PHASE:.status.phase"}
	ctx := t.Context()
	var err error
	if e.apps, e.names, err = cp.MakeShape(ctx, controlplane.Shape{Namespace: e.ns, Deployments: 5, Replicas: int32(2 * nodes)}); err != nil {
		t.Fatal(err)
	}
	if err := e.apps.AwaitComplete(ctx, e.names...); err != nil {
		t.Fatal(err)
	}
	p := e.serve()
	pods, _ := e.now()
	e.awaitRecorded(pods)
	// The window starts at a minute's start (Usage counts whole minutes)
	// once the first states are written: the time passing is what is
	// measured, no event to await.
	since := time.Now().Add(30 * time.Second).Truncate(time.Minute).Add(time.Minute)
	window := idleWindow
	if d, err := time.ParseDuration(os.Getenv("KUBECTL_REFLECT_IDLE_WINDOW")); err == nil && d > window {
		window = d // a longer measure, by hand: the nodes' status updates come every 10 to 20 minutes
	}
	time.Sleep(time.Until(since))
	s, err := history.OpenSQLite(ctx, historyFile(t, e.state), history.OpenOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	usedBefore, _, err := s.Size(ctx)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Until(since.Add(window)))

	usage, err := s.Usage(ctx, since)
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(since)
	var total int64
	var lines []string
	for _, u := range usage {
		total += u.Bytes
		lines = append(lines, fmt.Sprintf("%s: %d revisions, %d bytes (%.0f bytes/h)", u.Resource, u.Revisions, u.Bytes, perHour(u.Bytes, elapsed)))
	}
	used, file, err := s.Size(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rate, scaled := perHour(total, elapsed), perHour(total, elapsed)*100/float64(nodes)
	t.Logf("idle for %s, %d nodes, %d pods: %.0f bytes/h (%.0f at 100 nodes); the file: %d bytes in use (%.0f bytes/h) of %d\n%s",
		elapsed.Round(time.Second), nodes, 10*nodes, rate, scaled, used, perHour(used-usedBefore, elapsed), file, strings.Join(lines, "\n"))
	if scaled >= idleBound {
		t.Errorf("the idle record grows %.0f bytes an hour at 100 nodes, want under %d", scaled, idleBound)
	}
	status, errOut, code := e.run("serve", "status")
	if code != 0 {
		t.Fatalf("serve status: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"The record begins at ", ": recording began then\n", "\nRESOURCE ", "REVISIONS   BYTES\n", "\nleases.coordination.k8s.io ", "\ntotal "} {
		if !strings.Contains(status, want) {
			t.Errorf("serve status lacks %q:\n%s", want, status)
		}
	}
	stopServe(t, p)
}

func perHour(bytes int64, d time.Duration) float64 {
	return float64(bytes) * float64(time.Hour) / float64(d)
}

// historyFile is the default history of a daemon whose XDG_STATE_HOME is
// state.
func historyFile(t *testing.T, state string) string {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(state, "kubectl-reflect", "history", "*.db"))
	if len(matches) != 1 {
		t.Fatalf("history files: %v", matches)
	}
	return matches[0]
}

// stopServe stops a daemon with SIGTERM and waits for it to exit 0.
func stopServe(t *testing.T, p *testkit.Proc) {
	t.Helper()
	p.Signal(syscall.SIGTERM)
	if code := p.Wait(); code != 0 {
		t.Fatalf("serve exited %d", code)
	}
}
