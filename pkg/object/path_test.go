package object

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func key(k string) Step       { return Step{Key: k} }
func index(i int) Step        { return Step{Index: i, List: true} }
func path(steps ...Step) Path { return Path{steps: steps} }

var every = Step{Every: true}

// TestParsePath: each form of a path reads as its steps, and its String
// (str, when not the input) reads back as the same steps.
func TestParsePath(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Path
		str  string
	}{
		{in: "spec.replicas", want: path(key("spec"), key("replicas"))},
		{in: "{.spec.replicas}", want: path(key("spec"), key("replicas")), str: "spec.replicas"},
		{in: "{ .spec.replicas }", want: path(key("spec"), key("replicas")), str: "spec.replicas"},
		{in: ".spec.replicas", want: path(key("spec"), key("replicas")), str: "spec.replicas"},
		{in: "$.spec.replicas", want: path(key("spec"), key("replicas")), str: "spec.replicas"},
		{in: "{$.spec.replicas}", want: path(key("spec"), key("replicas")), str: "spec.replicas"},
		{in: " spec.replicas ", want: path(key("spec"), key("replicas")), str: "spec.replicas"},
		{in: "data", want: path(key("data"))},
		{in: "spec.template.spec.containers[0].image", want: path(key("spec"), key("template"), key("spec"), key("containers"), index(0), key("image"))},
		{in: "{.spec.containers[1].ports[0]}", want: path(key("spec"), key("containers"), index(1), key("ports"), index(0)), str: "spec.containers[1].ports[0]"},
		{in: "spec.containers[*].image", want: path(key("spec"), key("containers"), every, key("image"))},
		{in: "metadata.labels[*]", want: path(key("metadata"), key("labels"), every)},
		{in: "data[1][0]", want: path(key("data"), index(1), index(0))},
		{in: "x[007]", want: path(key("x"), index(7)), str: "x[7]"},
		{in: "metadata.labels['app.kubernetes.io/name']", want: path(key("metadata"), key("labels"), key("app.kubernetes.io/name"))},
		{in: `metadata.labels["app.kubernetes.io/name"]`, want: path(key("metadata"), key("labels"), key("app.kubernetes.io/name")), str: "metadata.labels['app.kubernetes.io/name']"},
		{in: `metadata.labels.app\.kubernetes\.io/name`, want: path(key("metadata"), key("labels"), key("app.kubernetes.io/name")), str: "metadata.labels['app.kubernetes.io/name']"},
		{in: `data['it\'s']`, want: path(key("data"), key("it's"))},
		{in: `data["a\\b"]`, want: path(key("data"), key(`a\b`)), str: `data['a\\b']`},
		{in: "data['a b']", want: path(key("data"), key("a b"))},
		{in: "data['[*]']", want: path(key("data"), key("[*]"))},
		{in: "['$0'].x", want: path(key("$0"), key("x"))},
		{in: "$['a'].b", want: path(key("a"), key("b")), str: "a.b"},
		{in: "a.$b", want: path(key("a"), key("$b")), str: "a['$b']"},
		{in: "annotations.example.com/x:y=z~+_-", want: path(key("annotations"), key("example"), key("com/x:y=z~+_-"))},
		{in: `a\*b`, want: path(key("a*b")), str: "['a*b']"},
		{in: "[0]", want: path(index(0))},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParsePath(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ParsePath = %#v, want %#v", got, tc.want)
			}
			str := tc.str
			if str == "" {
				str = tc.in
			}
			if got.String() != str {
				t.Errorf("String = %q, want %q", got.String(), str)
			}
			again, err := ParsePath(got.String())
			if err != nil || !reflect.DeepEqual(again, got) {
				t.Errorf("ParsePath(String) = %#v, %v", again, err)
			}
		})
	}
}

// TestParsePathRefused: a path that does not parse says why and where,
// naming it, on one line.
func TestParsePathRefused(t *testing.T) {
	for _, tt := range []struct{ path, want string }{
		{"", "it names no field"},
		{"  ", "it names no field"},
		{"{}", "it names no field"},
		{"$", "it names no field"},
		{".", "it names no field"},
		{"{.spec.replicas", "opens with { and closes with }"},
		{"spec.replicas}", "opens with { and closes with }"},
		{"{", "opens with { and closes with }"},
		{"$spec", `'s' after $`},
		{"spec..replicas", `an empty key after "spec."`},
		{"..spec", "an empty key at the start"},
		{"spec.", `an empty key after "spec."`},
		{"spec.replicas.", `an empty key after "spec.replicas."`},
		{"spec.[0]", `a . before a [ after "spec."`},
		{"containers[0", `a [ after "containers" is not closed`},
		{"spec[", `a [ after "spec" is not closed`},
		{"containers[x]", `[x] after "containers": want an index`},
		{"containers[-1]", `[-1] after "containers": want an index`},
		{"containers[+1]", `[+1] after "containers": want an index`},
		{"containers[]", `[] after "containers": want an index`},
		{"containers[ 0]", `[ 0] after "containers": want an index`},
		{"containers[0:2]", `[0:2] after "containers": JSONPath's filters, slices and unions`},
		{"containers[0,1]", `[0,1] after "containers": JSONPath's filters, slices and unions`},
		{"containers[99999999999999999999]", "the index is too large"},
		{"containers[?(@.name=='web')].image", `[?(@.name=='web')] after "containers": JSONPath's filters`},
		{"labels['a.b]", `the quote after "labels" is not closed`},
		{`labels["a'b]`, `the quote after "labels" is not closed`},
		{"labels['a'x]", `the quoted key after "labels" ends at its quote: ['key']`},
		{"labels['']", `an empty key after "labels"`},
		{"spec[0]x", `'x' after "spec[0]": a . or a [ follows a ]`},
		{"spec]", `a ] after "spec" closes no [`},
		{`spec\`, `a \ ends the path`},
		{"spec.containers.*", `'*' after "spec.containers.": a field path has no filters`},
		{"a,b", `',' after "a": a field path has no filters`},
		{"{.a}{.b}", `'}' after "a": a field path has no filters`},
		{"{range .items[*]}{.x}{end}", `' ' after "range": quote a key`},
		{"spec. replicas", `' ' after "spec.": quote a key`},
		{"data.it's", `'\'' after "data.it": quote a key`},
	} {
		t.Run(tt.path, func(t *testing.T) {
			p, err := ParsePath(tt.path)
			if err == nil {
				t.Fatalf("ParsePath = %#v, want an error", p)
			}
			prefix := "invalid field path " + strconv.Quote(tt.path) + ": "
			if msg := err.Error(); !strings.HasPrefix(msg, prefix) || !strings.Contains(msg, tt.want) || strings.Contains(msg, "\n") {
				t.Errorf("ParsePath = %v, want one line %q...%q", err, prefix, tt.want)
			}
		})
	}
}

// TestLookup: the value a path names in a document, or that it is not
// there.
func TestLookup(t *testing.T) {
	doc := []byte(`{"spec":{"replicas":3,"containers":[{"name":"a","image":"x"},{"name":"b","image":"y"}]},"metadata":{"labels":{"app.kubernetes.io/name":"web"}}}`)
	for _, tc := range []struct {
		path string
		want string
		ok   bool
	}{
		{"spec.replicas", "3", true},
		{"spec.containers[1].image", `"y"`, true},
		{"spec.containers[2].image", "", false},
		{"spec.containers", `[{"name":"a","image":"x"},{"name":"b","image":"y"}]`, true},
		{"metadata.labels['app.kubernetes.io/name']", `"web"`, true},
		{"spec.replicas.x", "", false},
		{"spec[0]", "", false},
		{"spec.containers[*].image", "", false},
		{"status", "", false},
	} {
		v, ok := MustParsePath(tc.path).Lookup(doc)
		if ok != tc.ok || v.Raw != tc.want {
			t.Errorf("%s: %q %t, want %q %t", tc.path, v.Raw, ok, tc.want, tc.ok)
		}
	}
}

// TestPathDelete: each form of a path removes what it names, and nothing
// else; what a removal leaves empty goes too; a path that names nothing
// there changes nothing.
func TestPathDelete(t *testing.T) {
	const doc = `{"metadata":{"name":"web","labels":{"app.kubernetes.io/name":"web","tier":"front"},"annotations":{"a":"1"}},
		"spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"app","image":"app:1"},{"name":"side","image":"side:2"}]}}},
		"data":[[1,2],[3]]}`
	for _, tt := range []struct {
		path, want string
		removed    bool
	}{
		{"spec.replicas", `{"metadata":{"annotations":{"a":"1"},"labels":{"app.kubernetes.io/name":"web","tier":"front"},"name":"web"},"spec":{"template":{"spec":{"containers":[{"image":"app:1","name":"app"},{"image":"side:2","name":"side"}]}}},"data":[[1,2],[3]]}`, true},
		{"{.spec.replicas}", `{"spec":{"template":{"spec":{"containers":[{"image":"app:1","name":"app"},{"image":"side:2","name":"side"}]}}}}`, true},
		{"$.spec.replicas", `{"spec":{"template":{"spec":{"containers":[{"image":"app:1","name":"app"},{"image":"side:2","name":"side"}]}}}}`, true},
		{"spec.template.spec.containers[0].image", `{"spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"app"},{"image":"side:2","name":"side"}]}}}}`, true},
		{"spec.template.spec.containers[*].image", `{"spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"app"},{"name":"side"}]}}}}`, true},
		{"spec.template.spec.containers[1]", `{"spec":{"replicas":3,"template":{"spec":{"containers":[{"image":"app:1","name":"app"}]}}}}`, true},
		{"spec.template.spec.containers[*]", `{"spec":{"replicas":3}}`, true},
		{"spec.template.spec.containers[7]", `{"spec":{"replicas":3,"template":{"spec":{"containers":[{"image":"app:1","name":"app"},{"image":"side:2","name":"side"}]}}}}`, false},
		{"metadata.labels['app.kubernetes.io/name']", `{"metadata":{"annotations":{"a":"1"},"labels":{"tier":"front"},"name":"web"}}`, true},
		{`metadata.labels["app.kubernetes.io/name"]`, `{"metadata":{"annotations":{"a":"1"},"labels":{"tier":"front"},"name":"web"}}`, true},
		{`metadata.labels.app\.kubernetes\.io/name`, `{"metadata":{"annotations":{"a":"1"},"labels":{"tier":"front"},"name":"web"}}`, true},
		{"metadata.annotations.a", `{"metadata":{"labels":{"app.kubernetes.io/name":"web","tier":"front"},"name":"web"}}`, true},
		{"metadata.labels[*]", `{"metadata":{"annotations":{"a":"1"},"name":"web"}}`, true},
		{"metadata.missing.deeper", `{"metadata":{"annotations":{"a":"1"},"labels":{"app.kubernetes.io/name":"web","tier":"front"},"name":"web"}}`, false},
		{"metadata[0]", `{"metadata":{"annotations":{"a":"1"},"labels":{"app.kubernetes.io/name":"web","tier":"front"},"name":"web"}}`, false},
		{"spec.template.spec.containers.image", `{"spec":{"replicas":3,"template":{"spec":{"containers":[{"image":"app:1","name":"app"},{"image":"side:2","name":"side"}]}}}}`, false},
		{"data[1][0]", `{"data":[[1,2]]}`, true},
		{"data[0][1]", `{"data":[[1],[3]]}`, true},
	} {
		t.Run(tt.path, func(t *testing.T) {
			p, err := ParsePath(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			var v any
			if err := json.Unmarshal([]byte(doc), &v); err != nil {
				t.Fatal(err)
			}
			got, removed := p.Delete(v)
			if removed != tt.removed {
				t.Errorf("removed %v, want %v", removed, tt.removed)
			}
			var want map[string]any
			if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
				t.Fatal(err)
			}
			for k, w := range want { // only the parts the case shows
				g, _ := json.Marshal(got.(map[string]any)[k])
				wj, _ := json.Marshal(w)
				if string(g) != string(wj) {
					t.Errorf("%s: %s, want %s", k, g, wj)
				}
			}
		})
	}
}

// TestPathDeleteAll: a path that removes the whole document's only field
// leaves nothing.
func TestPathDeleteAll(t *testing.T) {
	v := map[string]any{"status": map[string]any{"phase": "Running"}}
	if got, removed := MustParsePath("status.phase").Delete(v); got != nil || !removed {
		t.Errorf("Delete = %v, %v; want nil, true", got, removed)
	}
}
