package controllers

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
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
	os.Exit(run(m))
}

func run(m *testing.M) int {
	flag.Parse()
	if testing.Short() { // every test here skips: build nothing
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "kubectl-reflect-controllers-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "kubectl-reflect")
	build := exec.Command("go", "build", "-race", "-o", binary, "github.com/kubectl-reflect/kubectl-reflect/cmd/kubectl-reflect")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building kubectl-reflect:", err)
		return 1
	}
	bins, err := controlplane.Build(context.Background(), controlplane.BuildOptions{Progress: os.Stderr})
	if err != nil {
		fmt.Fprintln(os.Stderr, "building the control plane:", err)
		return 1
	}
	kubectlBinary = bins.Kubectl
	return cluster.Run(m)
}
