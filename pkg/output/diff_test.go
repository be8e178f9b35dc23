package output

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

func decodeRaw(t *testing.T, raw string) *object.Object {
	t.Helper()
	o, err := object.Decode([]byte(raw), object.Prune{})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// atRV is obj at resourceVersion rv, with the same Table cells.
func atRV(t *testing.T, obj *object.Object, rv string) *object.Object {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(obj.JSON(), &m); err != nil {
		t.Fatal(err)
	}
	m["metadata"].(map[string]any)["resourceVersion"] = rv
	out := decode(t, m)
	out.Cells = obj.Cells
	return out
}

func TestDiffPrinter(t *testing.T) {
	v1 := decodeRaw(t, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"ns","resourceVersion":"1","generation":1},"data":{"k":"v1","same":"x"}}`)
	v2 := decodeRaw(t, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"ns","resourceVersion":"2","generation":2},"data":{"k":"v2","same":"x"}}`)
	noise := decodeRaw(t, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"ns","resourceVersion":"3","generation":3},"data":{"k":"v2","same":"x"}}`)
	withCells := atRV(t, v1, "1")
	withCells.Cells = cellsJSON(t, "a", 2, staleAge)
	kind := &Kind{Kind: "ConfigMap", Resource: "configmaps", Namespaced: true}
	tests := []struct {
		name    string
		diffNew bool
		ev      Event
		want    string // the whole output
	}{
		{"a new object is one line", false, Event{Type: Applied, Kind: kind, Object: v1},
			"APPLIED configmap/a -n ns (resourceVersion 1)\n"},
		{"with columns, they follow as pairs", false, Event{Type: Applied, Kind: kind, Object: withCells, Columns: configMapColumns},
			"APPLIED configmap/a -n ns (resourceVersion 1) Data=2\n"},
		{"--diff-new: a new object's YAML follows", true, Event{Type: Applied, Kind: kind, Object: v1},
			"APPLIED configmap/a -n ns (resourceVersion 1)\n  apiVersion: v1\n  data:\n    k: v1\n    same: x\n  kind: ConfigMap\n  metadata:\n    name: a\n    namespace: ns\n"},
		{"a change prints a diff", false, Event{Type: Applied, Kind: kind, Object: v2, Old: v1},
			"APPLIED configmap/a -n ns (resourceVersion 2)\n--- resourceVersion 1\n+++ resourceVersion 2\n@@ -1,6 +1,6 @@\n apiVersion: v1\n data:\n-  k: v1\n+  k: v2\n   same: x\n kind: ConfigMap\n metadata:\n"},
		{"noise alone prints nothing", false, Event{Type: Applied, Kind: kind, Object: noise, Old: v2}, ""},
		{"deleted is one line", false, Event{Type: Deleted, Kind: kind, Object: v2, Old: v2},
			"DELETED configmap/a -n ns (resourceVersion 2)\n"},
		{"--diff-new: deleted is one line", true, Event{Type: Deleted, Kind: kind, Object: withCells, Columns: configMapColumns},
			"DELETED configmap/a -n ns (resourceVersion 1) Data=2\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			p, err := New(&out, Options{Diff: true, DiffNew: tt.diffNew})
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Print(tt.ev); err != nil {
				t.Fatal(err)
			}
			if err := p.Flush(); err != nil {
				t.Fatal(err)
			}
			if got := out.String(); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
	if _, err := New(&bytes.Buffer{}, Options{Diff: true, Format: "json"}); err == nil {
		t.Error("--diff with -o json: no error")
	}
}

// TestDiffGolden: a stream of several kinds under --diff, and --diff-new:
// new objects and deletions one line each with their columns (wide ones
// left out, none for a kind the server sent no Table for), changes as
// diffs.
func TestDiffGolden(t *testing.T) {
	appConfig := configMap(t, "default", "app-config", 3*time.Hour, map[string]string{"a": "1"})
	changed := atRV(t, configMap(t, "default", "app-config", 3*time.Hour, map[string]string{"a": "1", "b": "2"}), "57")
	web := deployment(t, "default", "web", time.Hour, 3, 1, "nginx:1.27")
	kubeSystem := namespace(t, "kube-system", time.Hour)
	kubeSystem = atRV(t, kubeSystem, "7")
	events := []Event{
		cmEvent(Applied, appConfig),
		deployEvent(Applied, web),
		{Type: Applied, Kind: namespaceKind, Object: kubeSystem},
		{Type: Applied, Kind: configMapKind, Object: changed, Old: appConfig, Columns: configMapColumns},
		{Type: Applied, Kind: configMapKind, Object: appConfig, Context: "east", Columns: configMapColumns},
		{Type: Deleted, Kind: configMapKind, Object: changed, Old: changed, Columns: configMapColumns},
	}
	for _, tt := range []struct {
		golden string
		opts   Options
	}{
		{"diff.golden", Options{Diff: true}},
		{"diff-new.golden", Options{Diff: true, DiffNew: true}},
		{"diff-colour.golden", Options{Diff: true, Color: true}},
	} {
		t.Run(tt.golden, func(t *testing.T) {
			got := printBatches(t, tt.opts, []batch{{events: events}})
			checkGolden(t, tt.golden, got)
			if strings.Contains(string(got), "generation") || strings.Contains(string(got), "resourceVersion:") {
				t.Errorf("noise in the output:\n%s", got)
			}
		})
	}
}
