package e2e

import (
	"slices"
	"strings"
	"testing"
)

// TestCompletionNames: the shell completion of a name lists the objects of
// the kind typed before it, read from the server in the namespace given,
// as kubectl's completion does.
func TestCompletionNames(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	createCM(t, cs, ns, "alpha-one", nil)
	createCM(t, cs, ns, "alpha-two", nil)
	createCM(t, cs, ns, "beta", nil)
	kc := "--kubeconfig=" + cp.AdminKubeconfig()
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"kind then name", []string{"watch", "cm", "-n", ns, kc, "alpha"}, []string{"alpha-one", "alpha-two"}},
		{"full kind name", []string{"get", "configmaps", "-n", ns, kc, ""}, []string{"alpha-one", "alpha-two", "beta"}},
		{"kind/name", []string{"get", "-n", ns, kc, "cm/b"}, []string{"cm/beta"}},
		{"unknown kind", []string{"get", "nosuchkind", "-n", ns, kc, ""}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runOnce(t, nil, append([]string{"__complete"}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr)
			}
			var got []string
			for _, line := range strings.Split(stdout, "\n") {
				if line != "" && !strings.HasPrefix(line, ":") {
					got = append(got, strings.SplitN(line, "\t", 2)[0])
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("completions = %q, want %q\nstdout:\n%s", got, tc.want, stdout)
			}
		})
	}
}
