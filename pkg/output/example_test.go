package output_test

import (
	"fmt"
	"os"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/output"
)

// A stream of two events printed in some of kubectl's formats: the table
// (the server's printer columns; AGE is recomputed from creationTimestamp
// when printed, or kept as the server sent it without one), NDJSON and
// name with the event type (kubectl's --output-watch-events). Objects keep
// the JSON they came with; Cells are the printer cells of the server's Table
// (kube.Shape.Table asks for them).
func Example() {
	configMaps := &output.Kind{Kind: "ConfigMap", Version: "v1", Resource: "configmaps", Namespaced: true}
	columns := []object.Column{
		{Name: "Name", Type: "string", Format: "name"},
		{Name: "Data", Type: "integer"},
		{Name: "Age", Type: "string"},
	}
	settings, err := object.Decode([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"default","name":"settings","resourceVersion":"7"},"data":{"a":"1"}}`), object.Prune{})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	settings.Cells = []byte(`["settings",1,"5s"]`)
	events := []output.Event{
		{Type: output.Applied, Kind: configMaps, Object: settings, Columns: columns},
		{Type: output.Deleted, Kind: configMaps, Object: settings, Columns: columns},
	}
	for _, opts := range []output.Options{
		{Format: ""},
		{Format: "json"},
		{Format: "name", WatchEvents: true},
	} {
		p, err := output.New(os.Stdout, opts)
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		for _, ev := range events {
			if err := p.Print(ev); err != nil {
				fmt.Println("error:", err)
			}
		}
		p.Flush() // printers buffer: flush when no event is at hand
	}
	// Output:
	// EVENT     NAME       DATA   AGE
	// APPLIED   settings   1      5s
	// DELETED   settings   1      5s
	// {"type":"APPLIED","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"default","name":"settings","resourceVersion":"7"},"data":{"a":"1"}}}
	// {"type":"DELETED","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"default","name":"settings","resourceVersion":"7"},"data":{"a":"1"}}}
	// configmap/settings applied
	// configmap/settings deleted
}
