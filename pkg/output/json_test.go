package output

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

func TestJSON(t *testing.T) {
	compact := []byte(`{"kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"a\nb"}}`)
	tests := []struct {
		name string
		ev   Event
		want string
	}{
		{"applied verbatim", Event{Type: Applied, Object: object.FromJSON(compact)},
			`{"type":"APPLIED","object":` + string(compact) + "}\n"},
		{"deleted", Event{Type: Deleted, Object: object.FromJSON(compact)},
			`{"type":"DELETED","object":` + string(compact) + "}\n"},
		{"indented is compacted", Event{Type: Applied, Object: object.FromJSON([]byte("{\n  \"kind\": \"ConfigMap\",\n  \"data\": {\"k\": \"a\\nb\"}\n}"))},
			`{"type":"APPLIED","object":{"kind":"ConfigMap","data":{"k":"a\nb"}}}` + "\n"},
		{"no raw", Event{Type: Applied, Object: &object.Object{}}, `{"type":"APPLIED","object":null}` + "\n"},
		{"other type", Event{Type: EventType(`odd"type`), Object: object.FromJSON([]byte(`{}`))},
			`{"type":"odd\"type","object":{}}` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			p, err := New(&out, Options{Format: "json"})
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Print(tt.ev); err != nil {
				t.Fatal(err)
			}
			if err := p.Flush(); err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Errorf("got  %s\nwant %s", out.String(), tt.want)
			}
			if !json.Valid(bytes.TrimSuffix(out.Bytes(), []byte("\n"))) {
				t.Errorf("line is not JSON: %s", out.String())
			}
		})
	}
}

func TestJSONInvalidMultiLine(t *testing.T) {
	var out bytes.Buffer
	p, _ := New(&out, Options{Format: "json"})
	if err := p.Print(Event{Type: Applied, Object: object.FromJSON([]byte("{\n"))}); err == nil {
		t.Error("printed broken JSON spanning lines")
	}
	p.Flush()
	if out.Len() != 0 {
		t.Errorf("wrote a partial line: %q", out.String())
	}
}

func TestJSONDoesNotAllocate(t *testing.T) {
	ev := cmEvent(Applied, kibConfigMap(t))
	p, err := New(io.Discard, Options{Format: "json"})
	if err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(1000, func() {
		p.Print(ev)
		p.Flush()
	})
	if allocs != 0 {
		t.Errorf("Print and Flush allocate %v times per event, want 0", allocs)
	}
}

// kibConfigMap is a ConfigMap whose JSON is about 1 KiB.
func kibConfigMap(t testing.TB) *object.Object {
	cm := configMap(t, "default", "app-config", 0, map[string]string{
		"application.properties": strings.Repeat("feature.flag=true\n", 42),
	})
	if n := len(cm.JSON()); n < 1000 || n > 1100 {
		t.Fatalf("ConfigMap JSON is %d bytes, want about 1 KiB", n)
	}
	return cm
}

// BenchmarkJSON is the per-event cost of watch -o json: Print for each
// event, Flush every 64 events, as when a burst of events arrives.
func BenchmarkJSON(b *testing.B) {
	ev := cmEvent(Applied, kibConfigMap(b))
	p, err := New(io.Discard, Options{Format: "json"})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(ev.Object.JSON())))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := p.Print(ev); err != nil {
			b.Fatal(err)
		}
		if i++; i%64 == 0 {
			p.Flush()
		}
	}
	p.Flush()
}

// BenchmarkJSONFlushEach flushes after every event, as a quiet watch does.
func BenchmarkJSONFlushEach(b *testing.B) {
	ev := cmEvent(Applied, kibConfigMap(b))
	p, err := New(io.Discard, Options{Format: "json"})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(ev.Object.JSON())))
	b.ReportAllocs()
	for b.Loop() {
		p.Print(ev)
		p.Flush()
	}
}
