package controllers

import (
	"os"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
	"github.com/kubectl-reflect/kubectl-reflect/test/testkit"
)

// cluster is the control plane every test of this package shares; its
// kube-controller-manager runs the garbage collector and the namespace
// controller (controlplane.Options' default).
var cluster controlplane.Shared

// binary is the kubectl-reflect built (with -race) for this test run.
var binary string

// kubectlBinary is the kubectl built with the control plane, at its version.
var kubectlBinary string

func TestMain(m *testing.M) {
	os.Exit(testkit.Main(m, func(b testkit.Built) int {
		binary, kubectlBinary = b.Reflect, b.ControlPlane.Kubectl
		return cluster.Run(m)
	}))
}
