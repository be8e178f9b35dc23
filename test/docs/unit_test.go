package docs

import (
	"slices"
	"testing"
)

func TestNormalize(t *testing.T) {
	for _, tc := range []struct{ a, b string }{
		{"APPLIED   configmap/settings               45s     Data=1", "APPLIED configmap/settings 0s Data=1"},
		{"deployment.apps/web   0/1     1            0           2m3s", "deployment.apps/web 0/1 1 0 5h"},
		{"APPLIED configmap/settings -n demo (resourceVersion 268)", "APPLIED configmap/settings -n demo (resourceVersion 1234)"},
		{"kubeconfig: /run/user/1000/kubectl-reflect/serve/7498b10dd32f8d51a26677b0835348a9.kubeconfig", "kubeconfig: /tmp/TestDocs123/001/kubectl-reflect/serve/0123456789abcdef.kubeconfig"},
		{"11:42:54.142 configmap-generator demo/greeting change:configmaps/demo/greeting 6.08ms ok", "09:01:02.003 configmap-generator demo/greeting change:configmaps/demo/greeting 12ms ok"},
		{"Serving configmaps at https://127.0.0.1:41443", "Serving configmaps at https://127.0.0.1:38001"},
	} {
		if normalize(tc.a) != normalize(tc.b) {
			t.Errorf("%q and %q normalize to %q and %q", tc.a, tc.b, normalize(tc.a), normalize(tc.b))
		}
	}
	for _, tc := range []struct{ a, b string }{
		{"Data=1", "Data=2"},
		{"Ready=0/1", "Ready=0/3"},
		{"configmap/settings", "configmap/other"},
	} {
		if normalize(tc.a) == normalize(tc.b) {
			t.Errorf("%q and %q both normalize to %q", tc.a, tc.b, normalize(tc.a))
		}
	}
}

func TestMatches(t *testing.T) {
	for _, tc := range []struct {
		want, actual []string
		ok           bool
	}{
		{nil, nil, true},
		{[]string{"a"}, nil, false},
		{nil, []string{"a"}, false},
		{[]string{"a  b"}, []string{"a b"}, true},
		{[]string{"a", "...", "d"}, []string{"a", "b", "c", "d"}, true},
		{[]string{"a", "...", "d"}, []string{"a", "d"}, true},
		{[]string{"a", "...", "d"}, []string{"a", "b"}, false},
		{[]string{"..."}, nil, true},
	} {
		if got := matches(tc.want, tc.actual); got != tc.ok {
			t.Errorf("matches(%q, %q) = %v", tc.want, tc.actual, got)
		}
	}
}

func TestParsePage(t *testing.T) {
	text := "# T\n\n<!-- doc-test: file app.yaml -->\n```yaml\nkind: X\n```\n\n<!-- doc-test: await 2 -->\n```console\n$ a \\\n  --b &\n$ c\nout 1\nout 2\n$ wait\n```\n"
	p, err := parsePage("t.md", text)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.blocks) != 2 || p.blocks[0].directive != "file" || p.blocks[0].arg != "app.yaml" || p.blocks[1].arg != "2" {
		t.Fatalf("blocks: %+v", p.blocks)
	}
	if got := p.content(p.blocks[0]); got != "kind: X\n" {
		t.Errorf("content %q", got)
	}
	steps, err := p.steps(p.blocks[1])
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	for _, s := range steps {
		cmds = append(cmds, s.cmd)
	}
	if !slices.Equal(cmds, []string{"a \n  --b &", "c", "wait"}) || !slices.Equal(p.output(steps[1]), []string{"out 1", "out 2"}) {
		t.Errorf("steps %q, output %q", cmds, p.output(steps[1]))
	}
	for _, bad := range []string{"```console\nno command\n```\n", "```sh\n", "<!-- doc-test: nope x -->\n```sh\n```\n", "<!-- doc-test: await x -->\n```console\n```\n"} {
		p, err := parsePage("bad.md", bad)
		if err == nil {
			for _, b := range p.blocks {
				if b.info == "console" {
					_, err = p.steps(b)
				}
			}
		}
		if err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestExitAgrees(t *testing.T) {
	for _, tc := range []struct {
		shown []string
		code  int
		ok    bool
	}{
		{[]string{"NAME DATA AGE"}, 0, true},
		{[]string{"error: unknown kind"}, 1, true},
		{[]string{`Error from server (NotFound): configmaps "x" not found`}, 1, true},
		{[]string{"NAME DATA AGE"}, 1, false},
		{[]string{"error: unknown kind"}, 0, false},
		{[]string{"context staging: error: the server doesn't have a resource type \"widgets\"", "context production: No resources found"}, 1, true},
		{nil, -1, true},
	} {
		if err := exitAgrees(tc.shown, tc.code); (err == nil) != tc.ok {
			t.Errorf("exitAgrees(%q, %d) = %v", tc.shown, tc.code, err)
		}
	}
}
