package output

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the output")

// testNow is the clock of every test: objects are created relative to it.
var testNow = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

var (
	configMapKind  = &Kind{Kind: "ConfigMap", Resource: "configmaps", Namespaced: true}
	deploymentKind = &Kind{Kind: "Deployment", Group: "apps", Resource: "deployments", Namespaced: true}
	namespaceKind  = &Kind{Kind: "Namespace", Resource: "namespaces"}

	// The server's Table columns, as `kubectl get --raw` shows them.
	configMapColumns = []object.Column{
		{Name: "Name", Type: "string", Format: "name"},
		{Name: "Data", Type: "integer"},
		{Name: "Age", Type: "string"},
	}
	deploymentColumns = []object.Column{
		{Name: "Name", Type: "string", Format: "name"},
		{Name: "Ready", Type: "string"},
		{Name: "Up-to-date", Type: "integer"},
		{Name: "Available", Type: "integer"},
		{Name: "Age", Type: "string"},
		{Name: "Containers", Type: "string", Priority: 1},
		{Name: "Images", Type: "string", Priority: 1},
		{Name: "Selector", Type: "string", Priority: 1},
	}
)

// staleAge is the AGE cell the server rendered when it sent the row: tables
// must not print it.
const staleAge = "1s"

func decode(t testing.TB, v any) *object.Object {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := object.Decode(raw, object.Prune{})
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

func cellsJSON(t testing.TB, cells ...any) []byte {
	t.Helper()
	raw, err := json.Marshal(cells)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func meta(ns, name string, age time.Duration) map[string]any {
	m := map[string]any{
		"name":              name,
		"uid":               "uid-" + name,
		"resourceVersion":   "42",
		"creationTimestamp": testNow.Add(-age).Format(time.RFC3339),
	}
	if ns != "" {
		m["namespace"] = ns
	}
	return m
}

// configMap is a ConfigMap with its Table cells.
func configMap(t testing.TB, ns, name string, age time.Duration, data map[string]string) *object.Object {
	obj := decode(t, map[string]any{
		"apiVersion": "v1",
		"kind":       "ConfigMap",
		"metadata":   meta(ns, name, age),
		"data":       data,
	})
	obj.Cells = cellsJSON(t, name, len(data), staleAge)
	return obj
}

// deployment is a Deployment of one container with its Table cells.
func deployment(t testing.TB, ns, name string, age time.Duration, replicas, ready int, image string) *object.Object {
	selector := map[string]any{"app": name}
	obj := decode(t, map[string]any{
		"apiVersion": "apps/v1",
		"kind":       "Deployment",
		"metadata":   meta(ns, name, age),
		"spec": map[string]any{
			"replicas": replicas,
			"selector": map[string]any{"matchLabels": selector},
			"template": map[string]any{
				"metadata": map[string]any{"labels": selector},
				"spec": map[string]any{"containers": []any{
					map[string]any{"name": name, "image": image},
				}},
			},
		},
		"status": map[string]any{"replicas": replicas, "readyReplicas": ready, "availableReplicas": ready},
	})
	obj.Cells = cellsJSON(t, name, strconv.Itoa(ready)+"/"+strconv.Itoa(replicas), replicas, ready, staleAge, name, image, "app="+name)
	return obj
}

// labelled is obj with labels, and the same Table cells.
func labelled(t testing.TB, obj *object.Object, labels map[string]string) *object.Object {
	var m map[string]any
	if err := json.Unmarshal(obj.JSON(), &m); err != nil {
		t.Fatal(err)
	}
	m["metadata"].(map[string]any)["labels"] = labels
	out := decode(t, m)
	out.Cells = obj.Cells
	return out
}

// namespace is a Namespace without Table cells.
func namespace(t testing.TB, name string, age time.Duration) *object.Object {
	return decode(t, map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": meta("", name, age)})
}

func cmEvent(typ EventType, obj *object.Object) Event {
	return Event{Type: typ, Kind: configMapKind, Object: obj, Columns: configMapColumns}
}

func deployEvent(typ EventType, obj *object.Object) Event {
	return Event{Type: typ, Kind: deploymentKind, Object: obj, Columns: deploymentColumns}
}

// checkGolden compares got with testdata/name, or rewrites it under -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test -update rewrites it)\n--- got\n%s--- want\n%s", path, got, want)
	}
}
