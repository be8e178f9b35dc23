package output

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"
)

// batch is what a caller prints between two flushes, and how long after
// testNow it flushes.
type batch struct {
	after  time.Duration
	events []Event
}

// printBatches prints the batches with a clock that follows them and
// returns the output.
func printBatches(t *testing.T, opts Options, batches []batch) []byte {
	t.Helper()
	var out bytes.Buffer
	now := testNow
	p, err := newPrinter(&out, opts, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range batches {
		now = testNow.Add(b.after)
		for _, ev := range b.events {
			if err := p.Print(ev); err != nil {
				t.Fatal(err)
			}
		}
		if err := p.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes()
}

func TestTableGolden(t *testing.T) {
	day := 24 * time.Hour
	rootCA := configMap(t, "default", "kube-root-ca.crt", 40*day, map[string]string{"ca.crt": "..."})
	appConfig := configMap(t, "default", "app-config", 3*time.Hour, map[string]string{"a": "1", "b": "2"})
	empty := configMap(t, "default", "empty", 90*time.Second, nil)
	long := configMap(t, "default", "a-configmap-with-a-much-longer-name", 0, map[string]string{"k": "v"})
	web := deployment(t, "default", "web", 10*day, 3, 3, "nginx:1.27")
	api := deployment(t, "shop", "api-server", 2*time.Hour, 2, 1, "registry.example.com/shop/api:v2.3.1")
	kubeSystem := namespace(t, "kube-system", 400*day)

	cmList := batch{events: []Event{cmEvent(Applied, rootCA), cmEvent(Applied, appConfig), cmEvent(Applied, empty)}}
	cmLive := []batch{
		cmList,
		{after: 30 * time.Second, events: []Event{cmEvent(Applied, appConfig)}},
		{after: time.Minute, events: []Event{cmEvent(Applied, long)}},
		{after: 2 * time.Minute, events: []Event{cmEvent(Deleted, empty)}},
		{after: 3 * time.Minute, events: []Event{cmEvent(Applied, appConfig)}},
	}
	deployLive := []batch{
		{events: []Event{deployEvent(Applied, web), deployEvent(Applied, api)}},
		{after: time.Hour, events: []Event{deployEvent(Deleted, api)}},
	}

	tests := []struct {
		golden  string
		opts    Options
		batches []batch
	}{
		{"table.golden", Options{}, cmLive},
		{"table-no-headers.golden", Options{NoHeaders: true}, cmLive},
		{"table-deployments.golden", Options{}, deployLive},
		{"wide.golden", Options{Format: "wide"}, deployLive},
		{"colour.golden", Options{Color: true}, cmLive},
		{"all-namespaces.golden", Options{AllNamespaces: true}, []batch{
			{events: []Event{deployEvent(Applied, web), deployEvent(Applied, api)}},
			{after: time.Minute, events: []Event{{Type: Applied, Kind: namespaceKind, Object: kubeSystem}}},
			{after: 2 * time.Minute, events: []Event{deployEvent(Applied, web)}},
		}},
		{"multi-kind.golden", Options{}, []batch{
			{events: []Event{cmEvent(Applied, rootCA), cmEvent(Applied, appConfig), deployEvent(Applied, web), deployEvent(Applied, api)}},
			{after: time.Minute, events: []Event{cmEvent(Applied, appConfig)}},
			{after: 2 * time.Minute, events: []Event{cmEvent(Deleted, appConfig)}},
			{after: 3 * time.Minute, events: []Event{deployEvent(Applied, web)}},
		}},
		{"second-kind-later.golden", Options{}, []batch{
			{events: []Event{cmEvent(Applied, rootCA), cmEvent(Applied, appConfig)}},
			{after: time.Minute, events: []Event{deployEvent(Applied, web)}},
			{after: 2 * time.Minute, events: []Event{cmEvent(Applied, appConfig)}},
		}},
		{"several-kinds-all-namespaces.golden", Options{AllNamespaces: true, SeveralKinds: true}, []batch{
			{events: []Event{cmEvent(Applied, rootCA), deployEvent(Applied, api), {Type: Applied, Kind: namespaceKind, Object: kubeSystem}}},
			{after: time.Minute, events: []Event{deployEvent(Applied, api)}},
			{after: 2 * time.Minute, events: []Event{{Type: Deleted, Kind: namespaceKind, Object: kubeSystem}}},
			{after: 3 * time.Minute, events: []Event{cmEvent(Deleted, rootCA)}},
		}},
		{"show-kind.golden", Options{ShowKind: true}, []batch{cmList}},
		{"labels.golden", Options{ShowLabels: true, ColumnLabels: []string{"app", "example.com/tier", "absent"}}, []batch{
			{events: []Event{cmEvent(Applied, labelled(t, appConfig, map[string]string{"app": "web", "example.com/tier": "front", "b": "2"})), cmEvent(Applied, empty)}},
			{after: time.Minute, events: []Event{cmEvent(Deleted, labelled(t, appConfig, map[string]string{"app": "web"}))}},
		}},
		{"no-table.golden", Options{}, []batch{
			{events: []Event{{Type: Applied, Kind: namespaceKind, Object: kubeSystem}, {Type: Applied, Object: namespace(t, "default", 400*day)}}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			checkGolden(t, tt.golden, printBatches(t, tt.opts, tt.batches))
		})
	}
}

func TestTableAgeIsRecomputed(t *testing.T) {
	cm := configMap(t, "default", "settings", 90*time.Second, nil)
	noTimestamp := cmEvent(Applied, decode(t, map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "undated"}}))
	noTimestamp.Object.Cells = cellsJSON(t, "undated", 0, "17d")
	noTimestampNoCell := cmEvent(Applied, noTimestamp.Object)
	noTimestampNoCell.Object = decode(t, map[string]any{"metadata": map[string]any{"name": "bare"}})

	tests := []struct {
		name  string
		after time.Duration
		ev    Event
		want  string
	}{
		{"at list time", 0, cmEvent(Applied, cm), "90s"},
		{"an hour later", time.Hour, cmEvent(Applied, cm), "61m"},
		{"days later", 50 * time.Hour, cmEvent(Applied, cm), "2d2h"},
		{"no timestamp keeps the server's cell", 0, noTimestamp, "17d"},
		{"no timestamp nor cell", 0, noTimestampNoCell, "<unknown>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := printBatches(t, Options{NoHeaders: true}, []batch{{after: tt.after, events: []Event{tt.ev}}})
			fields := strings.Fields(string(out))
			if got := fields[len(fields)-1]; got != tt.want {
				t.Errorf("AGE = %q, want %q (row %q)", got, tt.want, out)
			}
		})
	}
}

func TestTableHeaders(t *testing.T) {
	web := deployment(t, "default", "web", time.Hour, 1, 1, "nginx")
	tests := []struct {
		name string
		opts Options
		ev   Event
		want string
	}{
		{"table", Options{}, deployEvent(Applied, web), "EVENT NAME READY UP-TO-DATE AVAILABLE AGE"},
		{"wide", Options{Format: "wide"}, deployEvent(Applied, web), "EVENT NAME READY UP-TO-DATE AVAILABLE AGE CONTAINERS IMAGES SELECTOR"},
		{"all namespaces", Options{AllNamespaces: true}, deployEvent(Applied, web), "EVENT NAMESPACE NAME READY UP-TO-DATE AVAILABLE AGE"},
		{"cluster-scoped", Options{AllNamespaces: true}, Event{Type: Applied, Kind: namespaceKind, Object: namespace(t, "ns", 0)}, "EVENT NAME AGE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := printBatches(t, tt.opts, []batch{{events: []Event{tt.ev}}})
			header, _, _ := strings.Cut(string(out), "\n")
			if got := strings.Join(strings.Fields(header), " "); got != tt.want {
				t.Errorf("header = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTableColumnsChange(t *testing.T) {
	cm := configMap(t, "default", "settings", time.Hour, nil)
	changed := cmEvent(Applied, cm)
	changed.Columns = configMapColumns[:1] // e.g. a CRD's printer columns edited
	withoutCells := *cm
	withoutCells.Cells = nil
	out := printBatches(t, Options{}, []batch{
		{events: []Event{cmEvent(Applied, cm)}},
		// No columns nor cells: the kind's layout, with only name and age.
		{events: []Event{{Type: Deleted, Kind: configMapKind, Object: &withoutCells}}},
		{events: []Event{changed}},
	})
	want := "" +
		"EVENT     NAME       DATA   AGE\n" +
		"APPLIED   settings   0      60m\n" +
		"DELETED   settings          60m\n" +
		"\n" +
		"EVENT     NAME\n" +
		"APPLIED   settings\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

func TestCellText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"two\nlines", "two..."},
		{"cr\rhere", "cr..."},
		{"\x1b[31mred", "^[[31mred"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := cellText(tt.in); got != tt.want {
			t.Errorf("cellText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// BenchmarkTable is the per-event cost of the default output for a live
// ConfigMap event: Print, then Flush (which recomputes AGE and pads).
func BenchmarkTable(b *testing.B) {
	ev := cmEvent(Applied, kibConfigMap(b))
	p, err := newPrinter(io.Discard, Options{}, func() time.Time { return testNow })
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		p.Print(ev)
		p.Flush()
	}
}

// BenchmarkTableSeveralKinds is BenchmarkTable for a stream of several
// kinds (watch cm,deploy): a ConfigMap and a Deployment event, each printed
// and flushed; the cost reported is per event.
func BenchmarkTableSeveralKinds(b *testing.B) {
	evs := []Event{
		cmEvent(Applied, kibConfigMap(b)),
		deployEvent(Applied, deployment(b, "default", "web", time.Hour, 3, 2, "nginx:1.27")),
	}
	p, err := newPrinter(io.Discard, Options{SeveralKinds: true}, func() time.Time { return testNow })
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		p.Print(evs[i%2])
		p.Flush()
		i++
	}
}
