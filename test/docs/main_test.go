package docs

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
	"github.com/kubectl-reflect/kubectl-reflect/test/testkit"
)

// update rewrites the outputs that differ with what the commands printed.
var update = flag.Bool("update", false, "rewrite the pages' outputs that differ with the commands' output")

// cluster is the control plane the pages' examples run against; its
// kube-controller-manager runs the garbage collector and the namespace
// controller.
var cluster controlplane.Shared

// binDir holds kubectl-reflect (built with -race for this run) and the
// kubectl built with the control plane: the examples' PATH starts with it.
var binDir string

func TestMain(m *testing.M) {
	os.Exit(testkit.Main(m, func(b testkit.Built) int {
		binDir = filepath.Dir(b.Reflect)
		if err := os.Symlink(b.ControlPlane.Kubectl, filepath.Join(binDir, "kubectl")); err != nil {
			return fail(err)
		}
		return cluster.Run(m)
	}))
}

func fail(err error) int {
	os.Stderr.WriteString(err.Error() + "\n")
	return 1
}
