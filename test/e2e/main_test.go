package e2e

import (
	"os"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
	"github.com/kubectl-reflect/kubectl-reflect/test/testkit"
)

// cluster is shared by every test of this package; tests that restart
// kube-apiserver start their own.
var cluster controlplane.Shared

// binary is the kubectl-reflect built for this test run.
var binary string

// kubectlBinary is the kubectl built with the control plane, at its version:
// the parity tests compare with it, whatever kubectl the machine has.
var kubectlBinary string

func TestMain(m *testing.M) {
	os.Exit(testkit.Main(m, func(b testkit.Built) int {
		binary, kubectlBinary = b.Reflect, b.ControlPlane.Kubectl
		return cluster.Run(m)
	}))
}
