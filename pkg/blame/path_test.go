package blame

import (
	"reflect"
	"testing"
)

func key(k string) Step   { return Step{Key: k} }
func index(i int) Step    { return Step{Index: i, List: true} }
func path(s ...Step) Path { return Path(s) }

func TestParsePath(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Path
		str  string
	}{
		{in: "spec.replicas", want: path(key("spec"), key("replicas"))},
		{in: "{.spec.replicas}", want: path(key("spec"), key("replicas")), str: "spec.replicas"},
		{in: ".spec.replicas", want: path(key("spec"), key("replicas")), str: "spec.replicas"},
		{in: "$.spec.replicas", want: path(key("spec"), key("replicas")), str: "spec.replicas"},
		{in: "spec.template.spec.containers[0].image", want: path(key("spec"), key("template"), key("spec"), key("containers"), index(0), key("image"))},
		{in: "{.spec.containers[1].ports[0]}", want: path(key("spec"), key("containers"), index(1), key("ports"), index(0)), str: "spec.containers[1].ports[0]"},
		{in: "metadata.labels['app.kubernetes.io/name']", want: path(key("metadata"), key("labels"), key("app.kubernetes.io/name"))},
		{in: `metadata.labels["app.kubernetes.io/name"]`, want: path(key("metadata"), key("labels"), key("app.kubernetes.io/name")), str: "metadata.labels['app.kubernetes.io/name']"},
		{in: `metadata.labels.app\.kubernetes\.io/name`, want: path(key("metadata"), key("labels"), key("app.kubernetes.io/name")), str: "metadata.labels['app.kubernetes.io/name']"},
		{in: `data['it\'s']`, want: path(key("data"), key("it's"))},
		{in: "data", want: path(key("data"))},
		{in: "['$0'].x", want: path(key("$0"), key("x"))},
		{in: "data['a b']", want: path(key("data"), key("a b"))},
		{in: " spec.replicas ", want: path(key("spec"), key("replicas")), str: "spec.replicas"},
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

func TestParsePathRefused(t *testing.T) {
	for _, in := range []string{
		"", "{}", ".", "spec..replicas", "spec.", "spec.replicas.", "{.spec.replicas", "spec[", "spec[0", "spec[a]", "spec[-1]",
		"spec.containers[*].image", "spec.containers[?(@.name=='web')].image", "spec.containers[0:2]", "{.a}{.b}", "spec.[0]",
		"spec[0]x", "data['a", "data['a'x]", `spec\`, "a,b", "{range .items[*]}{.x}{end}",
	} {
		t.Run(in, func(t *testing.T) {
			if p, err := ParsePath(in); err == nil {
				t.Errorf("ParsePath(%q) = %#v, want an error", in, p)
			}
		})
	}
}

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
		{"status", "", false},
	} {
		p, err := ParsePath(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		v, ok := p.Lookup(doc)
		if ok != tc.ok || v.Raw != tc.want {
			t.Errorf("%s: %q %t, want %q %t", tc.path, v.Raw, ok, tc.want, tc.ok)
		}
	}
}
