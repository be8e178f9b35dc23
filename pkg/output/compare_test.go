package output

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// cm is a config map of namespace ns at resourceVersion rv with data kv
// (pairs), noise and status set.
func cm(t *testing.T, ns, name, rv string, kv ...string) *object.Object {
	t.Helper()
	var data []string
	for i := 0; i+1 < len(kv); i += 2 {
		data = append(data, fmt.Sprintf("%q:%q", kv[i], kv[i+1]))
	}
	return decodeRaw(t, fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"namespace":%q,"resourceVersion":%q,"uid":"u-%s",`+
		`"creationTimestamp":"2026-12-06T17:00:%02sZ","generation":%s,"labels":{"app":"web","rev":%q},"managedFields":[{"manager":"m%s"}]},`+
		`"data":{%s},"status":{"seen":%s}}`, name, ns, rv, rv, rv[len(rv)-1:], rv, rv, rv, strings.Join(data, ","), rv))
}

// TestCompare: equal objects (noise aside) print nothing; a change is a
// hunk under headers naming each side; an object some sides lack is a
// line; --ignore and --include-status change what is compared.
func TestCompare(t *testing.T) {
	for _, tt := range []struct {
		name  string
		sides []Side
		opts  CompareOptions
		want  string
	}{{
		name:  "equal but for noise and status",
		sides: []Side{{"east", []*object.Object{cm(t, "web", "a", "11", "k", "1")}}, {"west", []*object.Object{cm(t, "web", "a", "22", "k", "1")}}},
		opts:  CompareOptions{Ignore: []object.Path{object.MustParsePath("metadata.labels.rev")}},
	}, {
		name:  "a label differs",
		sides: []Side{{"east", []*object.Object{cm(t, "web", "a", "11", "k", "1")}}, {"west", []*object.Object{cm(t, "web", "a", "22", "k", "1")}}},
		want: `--- east: configmap/a -n web (resourceVersion 11)
+++ west: configmap/a -n web (resourceVersion 22)
@@ -5,6 +5,6 @@
 metadata:
   labels:
     app: web
-    rev: "11"
+    rev: "22"
   name: a
   namespace: web
`,
	}, {
		name:  "status kept",
		sides: []Side{{"east", []*object.Object{cm(t, "web", "a", "11", "k", "1")}}, {"west", []*object.Object{cm(t, "web", "a", "22", "k", "1")}}},
		opts:  CompareOptions{IncludeStatus: true, Ignore: []object.Path{object.MustParsePath("metadata.labels")}},
		want: `--- east: configmap/a -n web (resourceVersion 11)
+++ west: configmap/a -n web (resourceVersion 22)
@@ -6,4 +6,4 @@
   name: a
   namespace: web
 status:
-  seen: 11
+  seen: 22
`,
	}, {
		name: "only in one, missing in one, by name",
		sides: []Side{
			{"east", []*object.Object{cm(t, "web", "b", "11"), cm(t, "web", "a", "11")}},
			{"west", []*object.Object{cm(t, "prod", "a", "22"), cm(t, "prod", "c", "22")}},
			{"north", []*object.Object{cm(t, "web", "a", "33"), cm(t, "web", "c", "33")}},
		},
		opts: CompareOptions{Ignore: []object.Path{object.MustParsePath("metadata.labels"), object.MustParsePath("metadata.namespace")}},
		want: "only in east: configmap/b -n web\nmissing in east: configmap/c -n prod\n",
	}, {
		name: "by namespace",
		sides: []Side{
			{"2026-12-06T17:00:00Z", []*object.Object{cm(t, "web", "a", "11")}},
			{"now", []*object.Object{cm(t, "prod", "a", "11")}},
		},
		opts: CompareOptions{ByNamespace: true},
		want: "only in now: configmap/a -n prod\nonly in 2026-12-06T17:00:00Z: configmap/a -n web\n",
	}} {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			different, err := Compare(&b, cmKind, tt.sides, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want || different != (tt.want != "") {
				t.Errorf("Compare: different %v, wrote:\n%s\nwant:\n%s", different, b.String(), tt.want)
			}
		})
	}
}

// TestComparableYAML: what is left out by default, and what is kept.
func TestComparableYAML(t *testing.T) {
	got, err := ComparableYAML(cm(t, "web", "a", "11", "k", "1"), CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "apiVersion: v1\ndata:\n  k: \"1\"\nkind: ConfigMap\nmetadata:\n  labels:\n    app: web\n    rev: \"11\"\n  name: a\n  namespace: web\n"
	if got != want {
		t.Errorf("ComparableYAML:\n%s\nwant:\n%s", got, want)
	}
}

// TestComparedColoured: on a terminal, the diff's lines are coloured.
func TestComparedColoured(t *testing.T) {
	var b bytes.Buffer
	sides := []Side{{"a", []*object.Object{cm(t, "web", "x", "11")}}, {"b", []*object.Object{cm(t, "web", "x", "12")}}}
	if _, err := Compare(&b, cmKind, sides, CompareOptions{Color: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), ansiRed+`-    rev: "11"`+ansiReset) || !strings.Contains(b.String(), ansiGreen+`+    rev: "12"`+ansiReset) {
		t.Errorf("not coloured: %q", b.String())
	}
}
