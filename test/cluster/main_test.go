package cluster

import (
	"os"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
	"github.com/kubectl-reflect/kubectl-reflect/test/testkit"
)

// cluster is shared by every test of this package: ten kwok nodes, with
// the scheduler and the controllers that run Deployments.
var cluster = controlplane.Shared{Options: controlplane.Options{Scheduler: true, Kwok: &controlplane.KwokOptions{Nodes: 10}}}

// binary is the kubectl-reflect built for this run; kubectlBinary the
// kubectl of the cluster's version.
var binary, kubectlBinary string

func TestMain(m *testing.M) {
	os.Exit(testkit.Main(m, func(b testkit.Built) int {
		binary, kubectlBinary = b.Reflect, b.ControlPlane.Kubectl
		return cluster.Run(m)
	}))
}
