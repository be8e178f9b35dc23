package history

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/output"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/timeline"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/timeline/htmlpage"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/timeline/timelinetest"
)

// TestTimelineHTMLYAML: the page writes YAML and diffs as history --diff
// does. For every revision of a generated cluster's pods and Leases
// (lists of maps, nested maps, quoted timestamps and numbers, empty maps),
// the page's YAML (yamldiff.toYAML in chromium) is output.QuietYAML's and
// its diff against the revision before output.UnifiedDiff's.
func TestTimelineHTMLYAML(t *testing.T) {
	b := newBrowser(t)
	start := time.Date(2026, 12, 6, 8, 0, 0, 0, time.UTC)
	s := timelinetest.Recorded(t, timelinetest.Config{Start: start, Span: time.Hour, Pods: 4, Nodes: 1, Namespaces: 1, Churn: 1, Warnings: 1, Seed: 5})
	file := filepath.Join(t.TempDir(), "page.html")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	q := timeline.Query{Kinds: timelinetest.Kinds(), Since: start, Until: start.Add(time.Hour)}
	_, err = htmlpage.Write(context.Background(), f, []timeline.Cluster{{Context: "gen", Record: s}}, q, htmlpage.Options{})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	b.open("file://"+file, `document.body.dataset.ready === 'true'`)

	tl, err := timeline.Build(context.Background(), []timeline.Cluster{{Context: "gen", Record: s}}, q)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for l := range tl.Lanes() {
		revs, err := s.Revisions(context.Background(), l.Kind.Resource, l.Namespace, l.Name)
		if err != nil {
			t.Fatal(err)
		}
		var prev *object.Object
		for _, r := range revs {
			obj, err := object.Decode(r.Object, object.Prune{})
			if err != nil {
				t.Fatal(err)
			}
			want, err := output.QuietYAML(obj)
			if err != nil {
				t.Fatal(err)
			}
			if got := pageYAML(b, r.Object); got != want {
				t.Errorf("%s/%s at %d: the page's YAML\n%s\nwant\n%s", l.Namespace, l.Name, r.RV, got, want)
			}
			if prev != nil {
				want, err := output.UnifiedDiff(prev, obj)
				if err != nil {
					t.Fatal(err)
				}
				if got := pageDiff(b, prev, obj); got != want {
					t.Errorf("%s/%s at %d: the page's diff\n%s\nwant\n%s", l.Namespace, l.Name, r.RV, got, want)
				}
			}
			prev = obj
			checked++
		}
	}
	if checked < 20 {
		t.Errorf("checked %d revisions, want a cluster's", checked)
	}
	for _, raw := range tricky {
		obj, err := object.Decode([]byte(raw), object.Prune{})
		if err != nil {
			t.Fatal(err)
		}
		want, err := output.QuietYAML(obj)
		if err != nil {
			t.Fatal(err)
		}
		if got := pageYAML(b, []byte(raw)); got != want {
			t.Errorf("the page's YAML of %s\n%s\nwant\n%s", raw, got, want)
		}
	}
}

// tricky are config maps whose YAML needs go-yaml's rules: quoting,
// block scalars, folding of long strings, the order of keys with digits.
var tricky = []string{
	`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"q","namespace":"d"},"data":{"colon":"a: b","hash":"a #b","lead":" x","trail":"x ","empty":"","yes":"yes","null":"null","num":"12","float":"1.5e3","time":"2026-12-06T08:00:00Z","date":"2026-12-06","dash":"- x","star":"*x","quote":"it's","dq":"say \"hi\"","tab":"a\tb","unicode":"café ☕","colonend":"a:","url":"http://x/y?z=1"}}`,
	`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"m","namespace":"d"},"data":{"script":"#!/bin/sh\necho hi\n","nonl":"a\nb","keep":"a\n\n","lead":"  indented\nline\n","long":"Back-off restarting failed container app in pod web-0 of the team one deployment after the image pull, and more words after it to fold it twice over the eighty columns of go-yaml","quoted":"it's a long one: Back-off restarting failed container app in pod web-0 of the team one deployment after the pull"}}`,
	`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"k","namespace":"d","labels":{"a10":"x","a2":"x","a1":"x","A":"x","b.c/d":"x","_x":"x","9":"x","10":"x"},"annotations":{"x":"y"}},"data":{"k":"v"},"binaryData":{}}`,
	`{"apiVersion":"v1","kind":"List","metadata":{"name":"l","namespace":"d"},"items":[[1,2],{"a":[]},{"b":{}},null,true,0.25,-3,"x"]}`,
}

// quiet is JavaScript that leaves out of an object what the page's data
// leaves out (output.NoisePaths).
const quiet = `((o) => { if (o.metadata) { delete o.metadata.resourceVersion; delete o.metadata.managedFields; delete o.metadata.generation; }
	if (o.status) delete o.status.observedGeneration; return o; })`

func pageYAML(b *browser, raw []byte) string {
	b.t.Helper()
	return eval[string](b, `yamldiff.toYAML(`+quiet+`(`+string(raw)+`))`)
}

func pageDiff(b *browser, before, after *object.Object) string {
	b.t.Helper()
	from, _ := json.Marshal("resourceVersion " + before.ResourceVersion)
	to, _ := json.Marshal("resourceVersion " + after.ResourceVersion)
	return eval[string](b, `yamldiff.unifiedDiff(yamldiff.toYAML(`+quiet+`(`+string(before.JSON())+`)), yamldiff.toYAML(`+quiet+`(`+string(after.JSON())+`)), `+string(from)+`, `+string(to)+`)`)
}
