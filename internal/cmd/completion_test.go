package cmd

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// fakeServer serves discovery for testResources and a list of config maps
// in namespace team-a, and records the LIST queries it answers.
type fakeServer struct {
	*httptest.Server
	mu      sync.Mutex
	queries []string
}

func newFakeServer(t *testing.T) *fakeServer {
	s := &fakeServer{}
	bodies := map[string]string{
		"/api":          `{"kind":"APIVersions","versions":["v1"]}`,
		"/apis":         `{"kind":"APIGroupList","apiVersion":"v1","groups":[{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}}]}`,
		"/api/v1":       `{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["get","list","watch"],"shortNames":["cm"]},{"name":"namespaces","singularName":"namespace","namespaced":false,"kind":"Namespace","verbs":["get","list","watch"],"shortNames":["ns"]}]}`,
		"/apis/apps/v1": `{"kind":"APIResourceList","groupVersion":"apps/v1","resources":[{"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment","verbs":["get","list","watch"],"shortNames":["deploy"]}]}`,
		"/api/v1/namespaces/team-a/configmaps": `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[` +
			`{"metadata":{"name":"web-config","namespace":"team-a","resourceVersion":"5"}},` +
			`{"metadata":{"name":"web-env","namespace":"team-a","resourceVersion":"6"}},` +
			`{"metadata":{"name":"db-config","namespace":"team-a","resourceVersion":"7"}}]}`,
		"/api/v1/namespaces": `{"kind":"NamespaceList","apiVersion":"v1","metadata":{"resourceVersion":"3"},"items":[` +
			`{"metadata":{"name":"default","resourceVersion":"1"}},{"metadata":{"name":"team-a","resourceVersion":"2"}},{"metadata":{"name":"team-b","resourceVersion":"3"}}]}`,
	}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := bodies[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if strings.HasSuffix(r.URL.Path, "configmaps") || strings.HasSuffix(r.URL.Path, "/namespaces") {
			s.mu.Lock()
			s.queries = append(s.queries, r.URL.Path+"?"+r.URL.RawQuery)
			s.mu.Unlock()
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(s.Close)
	return s
}

// complete runs `kubectl reflect __complete args...` as kubectl's plugin
// completion does and returns the completions without descriptions and the
// directive line.
func complete(t *testing.T, args ...string) (comps []string, directive string) {
	t.Helper()
	var out, errOut bytes.Buffer
	root := NewCmdReflect(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(append([]string{"__complete", "--cache-dir", t.TempDir()}, args...))
	if err := root.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("__complete %q: %v\n%s", args, err, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	for _, l := range lines[:len(lines)-1] {
		comps = append(comps, strings.SplitN(l, "\t", 2)[0])
	}
	return comps, lines[len(lines)-1]
}

func TestWatchCompletesKindsFromTheServersDiscovery(t *testing.T) {
	s := newFakeServer(t)
	got, directive := complete(t, "--server", s.URL, "watch", "cm,d")
	if want := []string{"cm,deploy", "cm,deployments", "cm,deployments.apps"}; !slices.Equal(got, want) {
		t.Errorf("completions = %q, want %q", got, want)
	}
	if directive != ":4" { // no file completion
		t.Errorf("directive = %s, want :4", directive)
	}
}

func TestWatchCompletesNamesWithOneSmallList(t *testing.T) {
	s := newFakeServer(t)
	got, _ := complete(t, "--server", s.URL, "-n", "team-a", "watch", "cm", "web")
	if want := []string{"web-config", "web-env"}; !slices.Equal(got, want) {
		t.Errorf("completions = %q, want %q", got, want)
	}
	if want := []string{"/api/v1/namespaces/team-a/configmaps?limit=100"}; !slices.Equal(s.queries, want) {
		t.Errorf("LIST requests = %q, want %q", s.queries, want)
	}

	for _, args := range [][]string{
		{"watch", "cm,deploy", ""},     // a name needs one kind
		{"watch", "cm/web-config", ""}, // the name is given already
		{"watch", "-A", "cm", ""},      // a name needs one namespace
	} {
		if got, _ := complete(t, append([]string{"--server", s.URL, "-n", "team-a"}, args...)...); len(got) != 0 {
			t.Errorf("%q: completions = %q, want none", args, got)
		}
	}
	if len(s.queries) != 1 {
		t.Errorf("LIST requests = %q, want only the first", s.queries)
	}
}

func TestNamespaceFlagCompletesNamespaces(t *testing.T) {
	s := newFakeServer(t)
	got, _ := complete(t, "--server", s.URL, "watch", "cm", "-n", "team")
	if want := []string{"team-a", "team-b"}; !slices.Equal(got, want) {
		t.Errorf("completions = %q, want %q", got, want)
	}
}

func TestCompletionIsQuietWithoutAServer(t *testing.T) {
	for _, args := range [][]string{{"watch", ""}, {"watch", "cm", ""}} {
		got, directive := complete(t, append([]string{"--server", "http://127.0.0.1:1", "--request-timeout", "2s"}, args...)...)
		if len(got) != 0 || directive != ":4" {
			t.Errorf("%q: completions %q, directive %s; want none and :4", args, got, directive)
		}
	}
}

func TestCobraCompletesSubcommandsAndFlags(t *testing.T) {
	if got, _ := complete(t, ""); !slices.Contains(got, "watch") || !slices.Contains(got, "completion") || !slices.Contains(got, "version") {
		t.Errorf("subcommands = %q, want watch, completion and version among them", got)
	}
	if got, _ := complete(t, "watch", "--watch-o"); !slices.Equal(got, []string{"--watch-only"}) {
		t.Errorf("flags = %q, want --watch-only", got)
	}
}

func TestCompletionCommandHelpReadsKubectlReflect(t *testing.T) {
	run := func(args ...string) string {
		t.Helper()
		var out bytes.Buffer
		root := NewCmdReflect(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out})
		root.SetOut(&out)
		root.SetErr(&out)
		root.SetArgs(args)
		if err := root.Execute(); err != nil {
			t.Fatalf("%q: %v\n%s", args, err, out.String())
		}
		return out.String()
	}
	help := run("completion", "--help")
	for _, want := range []string{"kubectl reflect completion [command]", "kubectl_complete-reflect", "bash", "zsh", "fish", "powershell"} {
		if !strings.Contains(help, want) {
			t.Errorf("completion --help lacks %q:\n%s", want, help)
		}
	}
	for _, tt := range []struct{ args, want string }{
		{"", "shell not specified; one of bash, fish, powershell, zsh"},
		{"nope", `unknown command "nope" for "kubectl reflect completion"`},
	} {
		root := NewCmdReflect(genericiooptions.IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard})
		root.SetOut(io.Discard)
		root.SetErr(io.Discard)
		root.SetArgs(append([]string{"completion"}, strings.Fields(tt.args)...))
		if err := root.Execute(); err == nil || err.Error() != tt.want {
			t.Errorf("completion %s: error %v, want %q", tt.args, err, tt.want)
		}
	}
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		help := run("completion", shell, "--help")
		if !strings.Contains(help, "kubectl reflect completion "+shell) || strings.Contains(help, "kubectl-reflect completion") {
			t.Errorf("completion %s --help should run `kubectl reflect completion %s`:\n%s", shell, shell, help)
		}
	}
}
