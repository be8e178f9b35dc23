package multicluster

import (
	"os"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
	"github.com/kubectl-reflect/kubectl-reflect/test/testkit"
)

// fleet is the clusters every test reads: east, west and north, a context
// each in its kubeconfig. Tests work in namespaces of their own, and the
// test that stops an API server restarts it before it ends.
var fleet = controlplane.SharedFleet{Names: []string{"east", "west", "north"}, Options: controlplane.Options{NoControllerManager: true}}

// binary is the kubectl-reflect built for this run; kubectlBinary the
// kubectl of the clusters' version.
var binary, kubectlBinary string

func TestMain(m *testing.M) {
	os.Exit(testkit.Main(m, func(b testkit.Built) int {
		binary, kubectlBinary = b.Reflect, b.ControlPlane.Kubectl
		return fleet.Run(m)
	}))
}
