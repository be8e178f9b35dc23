package contexts

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"
)

const threeContexts = `apiVersion: v1
kind: Config
clusters:
- {name: c, cluster: {server: "https://127.0.0.1:1"}}
users:
- {name: u, user: {token: t}}
contexts:
- {name: prod, context: {cluster: c, user: u}}
- {name: dev, context: {cluster: c, user: u, namespace: web}}
- {name: stage, context: {cluster: c, user: u}}
current-context: dev
`

func TestContexts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(threeContexts), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		context string
		all     bool
		want    string // the contexts, or the error
	}{
		{context: "", want: ""},
		{context: "prod", want: ""},
		{context: "prod,dev", want: "prod dev"},
		{context: "stage,prod,dev", want: "stage prod dev"},
		{all: true, want: "dev prod stage"},
		{context: "prod,nope", want: `context "nope" not found in the kubeconfig; its contexts are: dev, prod, stage`},
		{context: "prod,prod", want: `--context "prod,prod": context "prod" is given twice`},
		{context: "prod,", want: `--context "prod,": a context name is empty`},
		{context: "prod", all: true, want: "--all-contexts and --context are exclusive: give one"},
	} {
		flags := genericclioptions.NewConfigFlags(true)
		flags.KubeConfig, flags.Context = &path, &tt.context
		got, err := Names(flags, tt.all)
		out := strings.Join(got, " ")
		if err != nil {
			out = err.Error()
		}
		if out != tt.want {
			t.Errorf("--context %q (all %v) = %q, want %q", tt.context, tt.all, out, tt.want)
		}
	}
	flags := genericclioptions.NewConfigFlags(true)
	flags.KubeConfig = &path
	if ns, _, err := Flags(flags, "dev", genericclioptions.NewTestIOStreamsDiscard()).ToRawKubeConfigLoader().Namespace(); err != nil || ns != "web" {
		t.Errorf("the namespace of context dev = %q, %v; want its own, web", ns, err)
	}
}

func TestPrefixer(t *testing.T) {
	var out bytes.Buffer
	p := NewPrefixer(&out)
	a, b := p.Writer("a: "), p.Writer("b: ")
	a.Write([]byte("one\ntw"))
	b.Write([]byte("three\n"))
	a.Write([]byte("o\n"))
	b.Write([]byte("last"))
	b.Flush()
	if want := "a: one\nb: three\na: two\nb: last\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}
