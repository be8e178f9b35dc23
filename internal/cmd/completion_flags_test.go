package cmd

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestTypeSlashNameCompletesNames(t *testing.T) {
	s := newFakeServer(t)
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"watch", "cm/web"}, []string{"cm/web-config", "cm/web-env"}},
		{[]string{"get", "configmaps/"}, []string{"configmaps/web-config", "configmaps/web-env", "configmaps/db-config"}},
		{[]string{"get", "cm/x"}, nil},
		{[]string{"get", "cm,deploy/"}, nil}, // a name needs one kind
		{[]string{"get", "/"}, nil},
	}
	for _, tt := range tests {
		got, directive := complete(t, append([]string{"--server", s.URL, "-n", "team-a"}, tt.args...)...)
		if !slices.Equal(got, tt.want) || directive != ":4" {
			t.Errorf("%q: completions %q, directive %s; want %q and :4", tt.args, got, directive, tt.want)
		}
	}
}

func TestOutputFlagCompletesFormats(t *testing.T) {
	if got, directive := complete(t, "history", "cm/x", "--revision", "5", "-o", ""); !slices.Equal(got, []string{"yaml", "json"}) || directive != ":4" {
		t.Errorf("history -o: completions %q, directive %s; want [yaml json] and :4", got, directive)
	}
	for _, cmd := range []string{"watch", "get"} {
		got, directive := complete(t, cmd, "cm", "-o", "")
		for _, want := range []string{"json", "yaml", "kyaml", "name", "wide", "jsonpath", "jsonpath-as-json", "go-template", "template", "custom-columns"} {
			if !slices.Contains(got, want) {
				t.Errorf("%s -o: completions %q lack %q", cmd, got, want)
			}
		}
		if directive != ":4" {
			t.Errorf("%s -o: directive %s, want :4 (no file names)", cmd, directive)
		}
		if got, _ := complete(t, cmd, "cm", "-o", "ky"); !slices.Equal(got, []string{"kyaml"}) {
			t.Errorf("%s -o ky: completions %q, want kyaml", cmd, got)
		}
	}
	if got, _ := complete(t, "version", "-o", ""); !slices.Equal(got, []string{"json", "yaml"}) {
		t.Errorf("version -o: completions %q, want json and yaml", got)
	}
}

func TestEventsFlagCompletesEventTypes(t *testing.T) {
	tests := []struct {
		toComplete string
		want       []string
	}{
		{"", []string{"applied", "deleted"}},
		{"d", []string{"deleted"}},
		{"applied,", []string{"applied,deleted"}},
		{"applied,deleted,", nil},
		{"x", nil},
	}
	for _, tt := range tests {
		got, directive := complete(t, "watch", "cm", "--events", tt.toComplete)
		if !slices.Equal(got, tt.want) || directive != ":4" {
			t.Errorf("--events %q: completions %q, directive %s; want %q and :4", tt.toComplete, got, directive, tt.want)
		}
	}
}

func TestKubeconfigFlagsCompleteItsNames(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "config")
	const config = `apiVersion: v1
kind: Config
clusters:
- {name: prod, cluster: {server: "https://prod.example.com"}}
- {name: dev, cluster: {server: "https://dev.example.com"}}
users:
- {name: alice, user: {token: x}}
contexts:
- {name: prod-admin, context: {cluster: prod, user: alice}}
- {name: dev-admin, context: {cluster: dev, user: alice}}
- {name: dev-view, context: {cluster: dev, user: alice}}
current-context: dev-admin
`
	if err := os.WriteFile(kubeconfig, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		flag, toComplete string
		want             []string
	}{
		{"--context", "", []string{"dev-admin", "dev-view", "prod-admin"}},
		{"--context", "dev", []string{"dev-admin", "dev-view"}},
		{"--cluster", "", []string{"dev", "prod"}},
		{"--user", "a", []string{"alice"}},
	}
	for _, tt := range tests {
		got, directive := complete(t, "--kubeconfig", kubeconfig, "get", "cm", tt.flag, tt.toComplete)
		if !slices.Equal(got, tt.want) || directive != ":4" {
			t.Errorf("%s %q: completions %q, directive %s; want %q and :4", tt.flag, tt.toComplete, got, directive, tt.want)
		}
	}
}
