package output

import (
	"bytes"
	"strings"
	"testing"

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

func TestDiffPrinter(t *testing.T) {
	v1 := decodeRaw(t, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"ns","resourceVersion":"1","generation":1},"data":{"k":"v1","same":"x"}}`)
	v2 := decodeRaw(t, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"ns","resourceVersion":"2","generation":2},"data":{"k":"v2","same":"x"}}`)
	noise := decodeRaw(t, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"ns","resourceVersion":"3","generation":3},"data":{"k":"v2","same":"x"}}`)
	kind := &Kind{Kind: "ConfigMap", Resource: "configmaps", Namespaced: true}
	tests := []struct {
		name string
		ev   Event
		want []string // lines that must appear
		none bool     // nothing printed
	}{
		{"first sighting prints the object", Event{Type: Applied, Kind: kind, Object: v1},
			[]string{"APPLIED configmap/a -n ns (resourceVersion 1)", "    k: v1"}, false},
		{"a change prints a diff", Event{Type: Applied, Kind: kind, Object: v2, Old: v1},
			[]string{"--- resourceVersion 1", "+++ resourceVersion 2", "-  k: v1", "+  k: v2"}, false},
		{"noise alone prints nothing", Event{Type: Applied, Kind: kind, Object: noise, Old: v2}, nil, true},
		{"deleted is one line", Event{Type: Deleted, Kind: kind, Object: v2},
			[]string{"DELETED configmap/a -n ns (resourceVersion 2)"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			p, err := New(&out, Options{Diff: true})
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Print(tt.ev); err != nil {
				t.Fatal(err)
			}
			if err := p.Flush(); err != nil {
				t.Fatal(err)
			}
			got := out.String()
			if tt.none && got != "" {
				t.Errorf("printed %q, want nothing", got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w+"\n") {
					t.Errorf("output lacks %q:\n%s", w, got)
				}
			}
			if strings.Contains(got, "generation") || strings.Contains(got, "resourceVersion:") {
				t.Errorf("noise in the output:\n%s", got)
			}
		})
	}
	if _, err := New(&bytes.Buffer{}, Options{Diff: true, Format: "json"}); err == nil {
		t.Error("--diff with -o json: no error")
	}
}
