package output

import (
	"testing"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// namespaceColumns are the server's Table columns of namespaces.
var namespaceColumns = []object.Column{
	{Name: "Name", Type: "string", Format: "name"},
	{Name: "Status", Type: "string"},
	{Name: "Age", Type: "string"},
}

// TestSharedTable: a stream of several kinds prints one header and a line
// per event: EVENT, [NAMESPACE,] kind/name, AGE, the label columns, then the
// kind's other columns as Name=value pairs.
func TestSharedTable(t *testing.T) {
	web := deployment(t, "default", "web", time.Hour, 2, 1, "nginx:1.27")
	cm := labelled(t, configMap(t, "default", "settings", 90*time.Second, map[string]string{"a": "1"}),
		map[string]string{"app": "web", "tier": "front"})
	ns := namespace(t, "demo", 48*time.Hour)
	ns.Cells = cellsJSON(t, "demo", "Active", staleAge)
	nsEvent := Event{Type: Applied, Kind: namespaceKind, Object: ns, Columns: namespaceColumns}
	// Empty and null cells print as <none>; a value with spaces as it is.
	blank := deployment(t, "default", "blank", time.Minute, 1, 0, "nginx")
	blank.Cells = cellsJSON(t, "blank", "", nil, "two words", staleAge)
	// A kind without columns has no pairs, and no padding after AGE.
	bare := namespace(t, "bare", 0)

	tests := []struct {
		name string
		opts Options
		evs  []Event
		want string
	}{
		{"pairs in the server's order", Options{SeveralKinds: true}, []Event{cmEvent(Applied, cm), deployEvent(Deleted, web)}, "" +
			"EVENT     NAME                             AGE     COLUMNS\n" +
			"APPLIED   configmap/settings               90s     Data=1\n" +
			"DELETED   deployment.apps/web              60m     Ready=1/2 Up-to-date=2 Available=1\n"},
		{"empty cells", Options{SeveralKinds: true}, []Event{deployEvent(Applied, blank), {Type: Applied, Kind: namespaceKind, Object: bare}}, "" +
			"EVENT     NAME                             AGE     COLUMNS\n" +
			"APPLIED   deployment.apps/blank            60s     Ready=<none> Up-to-date=<none> Available=two words\n" +
			"APPLIED   namespace/bare                   0s\n"},
		{"wide adds the priority>0 columns", Options{Format: "wide", SeveralKinds: true}, []Event{deployEvent(Applied, web), cmEvent(Applied, cm)}, "" +
			"EVENT     NAME                             AGE     COLUMNS\n" +
			"APPLIED   deployment.apps/web              60m     Ready=1/2 Up-to-date=2 Available=1 Containers=web Images=nginx:1.27 Selector=app=web\n" +
			"APPLIED   configmap/settings               90s     Data=1\n"},
		{"labels are columns", Options{SeveralKinds: true, ColumnLabels: []string{"example.com/tier"}, ShowLabels: true}, []Event{
			cmEvent(Applied, labelled(t, cm, map[string]string{"example.com/tier": "front", "app": "web"})), deployEvent(Applied, web),
		}, "" +
			"EVENT     NAME                             AGE     TIER    LABELS                           COLUMNS\n" +
			"APPLIED   configmap/settings               90s     front   app=web,example.com/tier=front   Data=1\n" +
			"APPLIED   deployment.apps/web              60m             <none>                           Ready=1/2 Up-to-date=2 Available=1\n"},
		{"all namespaces with a cluster-scoped kind", Options{AllNamespaces: true, SeveralKinds: true}, []Event{nsEvent, cmEvent(Applied, cm)}, "" +
			"EVENT     NAMESPACE   NAME                             AGE     COLUMNS\n" +
			"APPLIED               namespace/demo                   2d      Status=Active\n" +
			"APPLIED   default     configmap/settings               90s     Data=1\n"},
		{"no headers", Options{SeveralKinds: true, NoHeaders: true}, []Event{cmEvent(Applied, cm), deployEvent(Applied, web)}, "" +
			"APPLIED   configmap/settings               90s     Data=1\n" +
			"APPLIED   deployment.apps/web              60m     Ready=1/2 Up-to-date=2 Available=1\n"},
		{"colour", Options{SeveralKinds: true, Color: true, NoHeaders: true}, []Event{deployEvent(Deleted, web)}, "" +
			ansiRed + "DELETED" + ansiReset + "   deployment.apps/web              60m     Ready=1/2 Up-to-date=2 Available=1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(printBatches(t, tt.opts, []batch{{events: tt.evs}}))
			if got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// TestSharedTableFromSecondKind: without SeveralKinds, the table of one kind
// stays as it is until a second kind turns up; then the shared header is
// printed once, after a blank line, NAME wide enough for the names seen so
// far, and every later event of any kind is one line under it.
func TestSharedTableFromSecondKind(t *testing.T) {
	cm := configMap(t, "default", "a-long-configmap-name", time.Hour, nil)
	web := deployment(t, "default", "web", time.Hour, 1, 1, "nginx")
	out := printBatches(t, Options{}, []batch{
		{events: []Event{cmEvent(Applied, cm)}},
		{after: time.Minute, events: []Event{deployEvent(Applied, web)}},
		{after: 2 * time.Minute, events: []Event{cmEvent(Deleted, cm)}},
		{after: 3 * time.Minute, events: []Event{deployEvent(Applied, web)}},
	})
	want := "" +
		"EVENT     NAME                    DATA   AGE\n" +
		"APPLIED   a-long-configmap-name   0      60m\n" +
		"\n" +
		"EVENT     NAME                              AGE     COLUMNS\n" +
		"APPLIED   deployment.apps/web               61m     Ready=1/1 Up-to-date=1 Available=1\n" +
		"DELETED   configmap/a-long-configmap-name   62m     Data=0\n" +
		"APPLIED   deployment.apps/web               63m     Ready=1/1 Up-to-date=1 Available=1\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}
