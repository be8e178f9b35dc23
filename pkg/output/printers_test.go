package output

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// TestObjectFormats prints the same stream in every format but the table.
func TestObjectFormats(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	cm := configMap(t, "default", "settings", time.Hour, map[string]string{"mode": "fast"})
	web := deployment(t, "shop", "web", time.Hour, 2, 2, "nginx:1.27")
	events := []Event{cmEvent(Applied, cm), deployEvent(Applied, web), cmEvent(Deleted, cm)}

	tests := []struct {
		format      string
		template    string // --template
		noHeaders   bool
		watchEvents bool
		want        string
	}{
		{format: "json", want: `{"type":"APPLIED","object":` + string(cm.JSON()) + "}\n" +
			`{"type":"APPLIED","object":` + string(web.JSON()) + "}\n" +
			`{"type":"DELETED","object":` + string(cm.JSON()) + "}\n"},
		{format: "name", want: "configmap/settings\ndeployment.apps/web\nconfigmap/settings\n"},
		{format: `jsonpath={.kind}/{.metadata.name}{"\n"}`, want: "ConfigMap/settings\nDeployment/web\nConfigMap/settings\n"},
		{format: "jsonpath={.metadata.namespace} {.spec.replicas}|", want: "default |shop 2|default |"},
		{format: "jsonpath-file=" + file("jp", `{.metadata.name}{"\n"}`), want: "settings\nweb\nsettings\n"},
		{format: `go-template={{.metadata.name}}{{"\n"}}`, want: "settings\nweb\nsettings\n"},
		{format: "go-template-file=" + file("gt", "{{.kind}} {{.data.mode}}\n"), want: "ConfigMap fast\nDeployment <no value>\nConfigMap fast\n"},
		{format: "custom-columns=NAME:.metadata.name,IMAGES:.spec.template.spec.containers[*].image", want: "" +
			"NAME       IMAGES\n" +
			"settings   <none>\n" +
			"web        nginx:1.27\n" +
			"settings   <none>\n"},
		{format: "custom-columns=NAME:.metadata.name,DATA:{.data}", noHeaders: true, want: "" +
			"settings   map[mode:fast]\n" +
			"web        <none>\n" +
			"settings   map[mode:fast]\n"},
		{format: "custom-columns-file=" + file("cc", "KIND   NAME\n.kind  .metadata.name\n"), want: "" +
			"KIND         NAME\n" +
			"ConfigMap    settings\n" +
			"Deployment   web\n" +
			"ConfigMap    settings\n"},
		// Formats kubectl's get print flags add.
		{format: `template={{.metadata.name}}{{"\n"}}`, want: "settings\nweb\nsettings\n"},
		{template: `{{.kind}}{{"\n"}}`, want: "ConfigMap\nDeployment\nConfigMap\n"},
		{format: "jsonpath", template: `{.metadata.name}{"\n"}`, want: "settings\nweb\nsettings\n"},
		{format: "jsonpath-as-json={.metadata.name}", want: "[\n    \"settings\"\n]\n[\n    \"web\"\n]\n[\n    \"settings\"\n]\n"},
		// --output-watch-events: templates see {type, object}; name adds the type.
		{format: "name", watchEvents: true, want: "configmap/settings applied\ndeployment.apps/web applied\nconfigmap/settings deleted\n"},
		{format: `jsonpath={.type} {.object.metadata.name}{"\n"}`, watchEvents: true, want: "APPLIED settings\nAPPLIED web\nDELETED settings\n"},
		{format: `go-template={{.type}} {{.object.kind}}{{"\n"}}`, watchEvents: true, want: "APPLIED ConfigMap\nAPPLIED Deployment\nDELETED ConfigMap\n"},
		{format: "custom-columns=EVENT:.type,NAME:.object.metadata.name", watchEvents: true, want: "" +
			"EVENT     NAME\n" +
			"APPLIED   settings\n" +
			"APPLIED   web\n" +
			"DELETED   settings\n"},
	}
	for _, tt := range tests {
		t.Run(tt.format+tt.template, func(t *testing.T) {
			var out bytes.Buffer
			opts := withKubectl(t, Options{Format: tt.format, NoHeaders: tt.noHeaders, WatchEvents: tt.watchEvents}, tt.template)
			p, err := New(&out, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range events {
				if err := p.Print(ev); err != nil {
					t.Fatal(err)
				}
			}
			if out.Len() != 0 {
				t.Errorf("wrote %q before Flush", out.String())
			}
			if err := p.Flush(); err != nil {
				t.Fatal(err)
			}
			if got := out.String(); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// TestColumnsHeaderOnce checks that custom-columns prints its header once
// however many flushes, and that widths only grow.
func TestColumnsHeaderOnce(t *testing.T) {
	var out bytes.Buffer
	p, err := New(&out, withKubectl(t, Options{Format: "custom-columns=NAME:.metadata.name,NS:.metadata.namespace"}, ""))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "a-longer-name", "b"} {
		if err := p.Print(cmEvent(Applied, configMap(t, "default", name, 0, nil))); err != nil {
			t.Fatal(err)
		}
		if err := p.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	want := "" +
		"NAME   NS\n" +
		"a      default\n" +
		"a-longer-name   default\n" +
		"b               default\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

func TestYAML(t *testing.T) {
	cm := configMap(t, "default", "settings", time.Hour, map[string]string{"script": "line 1\n\nline 3\n"})
	events := []Event{cmEvent(Applied, cm), cmEvent(Deleted, cm)}
	var out bytes.Buffer
	p, err := New(&out, Options{Format: "yaml"})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range events {
		if err := p.Print(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Flush(); err != nil {
		t.Fatal(err)
	}
	wantFirst := "" +
		"type: APPLIED\n" +
		"object:\n" +
		"  apiVersion: v1\n" +
		"  data:\n" +
		"    script: |\n" +
		"      line 1\n" +
		"\n" +
		"      line 3\n" +
		"  kind: ConfigMap\n" +
		"  metadata:\n" +
		"    creationTimestamp: \"2025-06-01T11:00:00Z\"\n" +
		"    name: settings\n" +
		"    namespace: default\n" +
		"    resourceVersion: \"42\"\n" +
		"    uid: uid-settings\n"
	docs := strings.Split(out.String(), "---\n")
	if len(docs) != len(events) {
		t.Fatalf("got %d documents, want %d:\n%s", len(docs), len(events), out.String())
	}
	if docs[0] != wantFirst {
		t.Errorf("first document:\n%s\nwant\n%s", docs[0], wantFirst)
	}
	// Each document reads back as the event.
	for i, doc := range docs {
		got, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
		want, err := yaml.YAMLToJSON([]byte(`{"type":"` + string(events[i].Type) + `","object":` + string(cm.JSON()) + `}`))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("document %d reads back as\n%s\nwant\n%s", i, got, want)
		}
	}
}

func TestName(t *testing.T) {
	tests := []struct {
		name string
		ev   Event
		want string
	}{
		{"core", cmEvent(Applied, configMap(t, "default", "foo", 0, nil)), "configmap/foo\n"},
		{"group", deployEvent(Deleted, deployment(t, "default", "web", 0, 1, 1, "nginx")), "deployment.apps/web\n"},
		{"kind from the object", Event{Type: Applied, Object: deployment(t, "default", "api", 0, 1, 1, "nginx")}, "deployment.apps/api\n"},
		{"core kind from the object", Event{Type: Applied, Object: namespace(t, "prod", 0)}, "namespace/prod\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			p, err := New(&out, Options{Format: "name"})
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
				t.Errorf("got %q, want %q", out.String(), tt.want)
			}
		})
	}
}

func TestNoObject(t *testing.T) {
	for _, format := range []string{"", "wide", "json", "yaml", "name", "jsonpath={.a}", "go-template={{.a}}", "custom-columns=A:.a", "kyaml"} {
		p, err := New(&bytes.Buffer{}, withKubectl(t, Options{Format: format}, ""))
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Print(Event{Type: Applied, Kind: configMapKind}); err == nil {
			t.Errorf("-o %q printed an event without object", format)
		}
	}
}
