package object

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// TestParsePathErrors: a path that does not parse says why, naming it.
func TestParsePathErrors(t *testing.T) {
	for _, tt := range []struct{ path, want string }{
		{"", "names no field"},
		{"{}", "names no field"},
		{"spec..replicas", "a key is empty"},
		{"spec.", "a key is empty"},
		{"spec.[0]", "a key is empty"},
		{"containers[0", "'[' is not closed"},
		{"containers[x]", "[x]: want an index"},
		{"containers[-1]", "[-1]: want an index"},
		{"labels['a.b]", "is not closed"},
		{"labels['']", "a key is empty"},
		{"spec]", "closes no '['"},
		{`spec\`, "ends with a backslash"},
	} {
		_, err := ParsePath(tt.path)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), strconv.Quote(tt.path)) {
			t.Errorf("ParsePath(%q) = %v, want an error naming it and saying %q", tt.path, err, tt.want)
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
			if p.String() != tt.path {
				t.Errorf("String() = %q", p.String())
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
