package recordview

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/blame"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
)

func TestValueText(t *testing.T) {
	for _, tc := range []struct{ raw, want string }{
		{`"nginx:1.27"`, "nginx:1.27"},
		{`3`, "3"},
		{`true`, "true"},
		{`null`, "null"},
		{`""`, `""`},
		{`"two\nlines"`, `two\nlines`},
		{`{ "a": 1,  "b": [1, 2] }`, `{"a":1,"b":[1,2]}`},
		{`"` + strings.Repeat("x", 70) + `"`, strings.Repeat("x", 57) + "..."},
	} {
		if got := valueText([]byte(tc.raw)); got != tc.want {
			t.Errorf("valueText(%s) = %q, want %q", tc.raw, got, tc.want)
		}
	}
	if got := valueText(nil); got != "<none>" {
		t.Errorf("valueText(nil) = %q", got)
	}
}

func TestPrintBlame(t *testing.T) {
	at := time.Date(2026, 12, 6, 18, 0, 0, 0, time.UTC)
	found := blame.Change{RV: 90, Time: at, Op: history.Initial}
	scaled := blame.Change{RV: 1234, Time: at.Add(time.Minute), Op: history.Modified, Manager: "kubectl-scale", Operation: "Update", Subresource: "scale"}
	lines := []blame.Line{{Text: "spec:", Change: found}, {Text: "  replicas: 3", Change: scaled}}
	var out, errOut bytes.Buffer
	p := Blame{IOStreams: genericiooptions.IOStreams{Out: &out, ErrOut: &errOut}, Kind: kube.Resource{GVR: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}}, Name: "web"}
	revs := []history.Revision{{RV: 1234, Op: history.Modified}, {RV: 1300, Time: at.Add(2 * time.Minute), Op: history.Deleted}}
	if err := p.Lines(revs, lines); err != nil {
		t.Fatal(err)
	}
	want := "90    before recording      INITIAL        <none>        spec:\n" +
		"1234  2026-12-06T18:01:00Z  kubectl-scale  Update/scale    replicas: 3\n"
	if out.String() != want {
		t.Errorf("blame printed:\n%s\nwant:\n%s", out.String(), want)
	}
	if errOut.String() != `note: deployments.apps "web" was deleted at 2026-12-06T18:02:00Z (resourceVersion 1300): blaming its last state`+"\n" {
		t.Errorf("stderr: %q", errOut.String())
	}
}
