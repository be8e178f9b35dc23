package htmlpage

import (
	"encoding/json"
	"testing"
)

// TestAppendQuiet: the noise members are cut out wherever they stand
// (first, last, only member, with spaces), the rest kept byte for byte.
func TestAppendQuiet(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"metadata":{"name":"a","resourceVersion":"12","managedFields":[{"manager":"x","f":{"a,}":1}}],"generation":3},"data":{"k":"v"}}`,
			`{"metadata":{"name":"a"},"data":{"k":"v"}}`},
		{`{"metadata":{"resourceVersion":"12","name":"a"}}`, `{"metadata":{"name":"a"}}`},
		{`{"metadata":{"resourceVersion":"12"}}`, `{"metadata":{}}`},
		{`{"metadata": {"name": "a" , "resourceVersion" : "12" }, "status": {"observedGeneration": 2, "phase": "Running"}}`,
			`{"metadata": {"name": "a"  }, "status": { "phase": "Running"}}`},
		{`{"metadata":{"name":"res\"ourceVersion"},"spec":{"resourceVersion":"kept"}}`, `{"metadata":{"name":"res\"ourceVersion"},"spec":{"resourceVersion":"kept"}}`},
		{`{"kind":"Pod"}`, `{"kind":"Pod"}`},
	} {
		got := string(appendQuiet([]byte("x"), []byte(c.in)))
		if got != "x"+c.want || !json.Valid([]byte(got[1:])) {
			t.Errorf("appendQuiet(%s)\n got %s\nwant %s", c.in, got[1:], c.want)
		}
	}
}
