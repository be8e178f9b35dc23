package builtin

import (
	"strings"
	"testing"
)

// TestRegistrySelect: a list names each built-in once, in its order; an
// unknown or empty name is the error.
func TestRegistrySelect(t *testing.T) {
	r := NewRegistry(
		Spec{Name: "mirror", Reads: []string{"secrets", "configmaps"}, Writes: []string{"secrets"}},
		Spec{Name: "configmap-generator", Reads: []string{"cmg"}, Writes: []string{"configmaps"}, CRD: []byte("crd")},
	)
	for _, tc := range []struct {
		list, want, err string
	}{
		{list: "mirror", want: "mirror"},
		{list: "mirror,configmap-generator,mirror", want: "mirror,configmap-generator"},
		{list: "mirror, configmap-generator", want: "mirror,configmap-generator"},
		{list: "nope", err: `unknown controller "nope"`},
		{list: "mirror,", err: "empty controller name"},
	} {
		bs, err := r.Select(tc.list)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.list, err, tc.err)
			}
			continue
		}
		var names []string
		for _, b := range bs {
			names = append(names, b.Name)
		}
		if got := strings.Join(names, ","); err != nil || got != tc.want {
			t.Errorf("%q: %q, %v; want %q", tc.list, got, err, tc.want)
		}
	}
}
