package docs

import (
	"slices"
	"testing"
)

func TestMatchLine(t *testing.T) {
	vary := []string{"0s", "1234", "1235", "2026-12-04T08:00:00Z", "41443", "7498b10dd32f8d51a26677b0835348a9", "/run/user/1000", "11:42:54.142", "6.08ms", "5d4f8e0c-3f8a-4b7e-9a51-0c2d6f1e7b3a", "284.0Ki"}
	for _, tc := range []struct {
		want, actual string
		ok           bool
	}{
		{"APPLIED   configmap/settings               0s     Data=1", "APPLIED configmap/settings 45s Data=1", true},
		{"deployment.apps/web   0/1     1            0           0s", "deployment.apps/web 0/1 1 0 2m3s", true},
		{"APPLIED configmap/settings -n demo (resourceVersion 1234)", "APPLIED configmap/settings -n demo (resourceVersion 268)", true},
		{"kubeconfig: /run/user/1000/kubectl-reflect/serve/7498b10dd32f8d51a26677b0835348a9.kubeconfig", "kubeconfig: /tmp/TestDocs123/001/kubectl-reflect/serve/0123456789abcdef.kubeconfig", true},
		{"11:42:54.142 configmap-generator demo/greeting change:configmaps/demo/greeting 6.08ms ok", "09:01:02.003 configmap-generator demo/greeting change:configmaps/demo/greeting 12ms ok", true},
		{"Serving configmaps at https://127.0.0.1:41443", "Serving configmaps at https://127.0.0.1:38001", true},
		{"1234 2026-12-04T08:00:00Z ADDED", "16 2026-12-06T21:00:59.5Z ADDED", true},
		{"uid: 5d4f8e0c-3f8a-4b7e-9a51-0c2d6f1e7b3a", "uid: 56ddd751-14e3-4432-b45d-0f8336cc5ae9", true},
		{"Size: 284.0Ki in use of at most 1Gi (the file: 284.0Ki)", "Size: 1.2Mi in use of at most 1Gi (the file: 998)", true},
		// what is not marked is compared as printed
		{"Data=1", "Data=2", false},
		{"Ready=0/1", "Ready=0/3", false},
		{"configmap/settings", "configmap/other", false},
		{"HTTP 404", "HTTP 405", false},
		{"kept 168h0m0s, at most 1Gi", "kept 24h0m0s, at most 1Gi", false},
		{"wrote 28646 bytes", "wrote 28647 bytes", false},
		{"at /home/user/x", "at /tmp/x", false},
		// a marked value stands for one of its kind, as a word of its own
		{"resourceVersion 1234", "resourceVersion 12a", false},
		{"resourceVersion 12345", "resourceVersion 12345", true},
		{"resourceVersion 12345", "resourceVersion 99", false},
		{"age 0s", "age 1", false},
		{"at 2026-12-04T08:00:00Z", "at yesterday", false},
		{"Size: 284.0Ki in use", "Size: 284.0 in use", false},
		{"Size: 284.0Ki of at most 1Gi", "Size: 284.0Ki of at most 2Gi", false},
	} {
		v, err := newVarying(vary)
		if err != nil {
			t.Fatal(err)
		}
		if got := v.matchLine(tc.want, tc.actual); got != tc.ok {
			t.Errorf("matchLine(%q, %q) = %v", tc.want, tc.actual, got)
		}
	}
	if _, err := newVarying([]string{"settings"}); err == nil {
		t.Errorf("a word marked to vary: no error")
	}
}

func TestMatches(t *testing.T) {
	for _, tc := range []struct {
		want, actual []string
		vary         []string
		elide, ok    bool
	}{
		{nil, nil, nil, false, true},
		{[]string{"a"}, nil, nil, false, false},
		{nil, []string{"a"}, nil, false, false},
		{[]string{"a  b"}, []string{"a b"}, nil, false, true},
		{[]string{"a", "...", "d"}, []string{"a", "b", "c", "d"}, nil, true, true},
		{[]string{"a", "...", "d"}, []string{"a", "d"}, nil, true, true},
		{[]string{"a", "...", "d"}, []string{"a", "b"}, nil, true, false},
		{[]string{"..."}, nil, nil, true, true},
		// "..." unmarked is a line "..."
		{[]string{"a", "...", "d"}, []string{"a", "b", "c", "d"}, nil, false, false},
		{[]string{"a", "..."}, []string{"a", "..."}, nil, false, true},
		// a number shown twice stands for one number
		{[]string{"--- rv 213", "+++ rv 217"}, []string{"--- rv 5", "+++ rv 9"}, []string{"213", "217"}, false, true},
		{[]string{"rv 213", "was 213"}, []string{"rv 5", "was 5"}, []string{"213"}, false, true},
		{[]string{"rv 213", "was 213"}, []string{"rv 5", "was 6"}, []string{"213"}, false, false},
		{[]string{"rv 213", "...", "was 213"}, []string{"rv 5", "x", "was 6"}, []string{"213"}, true, false},
		// two ages shown alike may differ
		{[]string{"a 0s", "b 0s"}, []string{"a 0s", "b 3s"}, []string{"0s"}, false, true},
	} {
		v, err := newVarying(tc.vary)
		if err != nil {
			t.Fatal(err)
		}
		if _, got := matches(tc.want, tc.actual, v, tc.elide); got != tc.ok {
			t.Errorf("matches(%q, %q, vary %q, ellipsis %v) = %v", tc.want, tc.actual, tc.vary, tc.elide, got)
		}
	}
}

func TestMarks(t *testing.T) {
	for _, tc := range []struct {
		text string
		ok   bool
	}{
		{"```console\n$ a\nb 1234\n```\n", true},
		{"<!-- doc-test: vary 1234 -->\n```console\n$ a\nb 1234\n```\n", true},
		{"<!-- doc-test: vary 1234 -->\n<!-- doc-test: await 2 -->\n```console\n$ a\nb 1234\n```\n", true},
		{"<!-- doc-test: vary 1235 -->\n```console\n$ a\nb 1234\n```\n", false},
		{"<!-- doc-test: vary b -->\n```console\n$ a\nb 1234\n```\n", false},
		{"```console\n$ a\nb\n...\n```\n", false},
		{"<!-- doc-test: ellipsis -->\n```console\n$ a\nb\n...\n```\n", true},
		{"<!-- doc-test: ellipsis -->\n```console\n$ a\nb\n```\n", false},
		{"<!-- doc-test: ellipsis -->\n```text\n...\n```\n", false},
		{"<!-- doc-test: await 1 -->\n<!-- doc-test: skip x -->\n```console\n$ a\n```\n", false},
	} {
		p, err := parsePage("t.md", tc.text)
		if err == nil {
			for _, b := range p.blocks {
				if err = checkTag(p, b); err != nil {
					break
				}
			}
		}
		if (err == nil) != tc.ok {
			t.Errorf("%q: error %v", tc.text, err)
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
