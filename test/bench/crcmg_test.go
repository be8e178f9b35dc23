//go:build linux

package main

import (
	"os"
	"regexp"
	"testing"
)

// TestCRCMGSameKubernetesLibraries: the controller-runtime measuring stick
// (its own module) builds on the k8s.io libraries kubectl-reflect uses, so
// the two controllers differ in their framework, not in client-go.
func TestCRCMGSameKubernetesLibraries(t *testing.T) {
	versions := func(path string) map[string]string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, m := range regexp.MustCompile(`(?m)^\s*(k8s\.io/(?:api|apimachinery|client-go)) (v\S+)`).FindAllStringSubmatch(string(b), -1) {
			out[m[1]] = m[2]
		}
		return out
	}
	ours, theirs := versions("../../go.mod"), versions("crcmg/go.mod")
	for _, lib := range []string{"k8s.io/api", "k8s.io/apimachinery", "k8s.io/client-go"} {
		if ours[lib] == "" || ours[lib] != theirs[lib] {
			t.Errorf("%s: kubectl-reflect %q, test/bench/crcmg %q", lib, ours[lib], theirs[lib])
		}
	}
}
