// Command controlplane builds and runs the local Kubernetes control plane of
// package test/controlplane, for demos and manual testing:
//
//	go run ./test/controlplane/cmd/controlplane build   # build or find the cached binaries
//	go run ./test/controlplane/cmd/controlplane up      # run until Ctrl-C
//	go run ./test/controlplane/cmd/controlplane up --scheduler --kwok-nodes 10   # with nodes where pods run
//
// Unlike the tests' default, up runs kube-controller-manager's deployment
// and replicaset controllers too (--controllers), so a Deployment gets its
// ReplicaSet and Pods. Scripts should run a built binary, not `go run`:
// the go command passes no signal on to the command it runs, and dies of
// SIGTERM leaving it running.
package main

import (
	"fmt"
	"os"
)

func main() {
	if err := newRootCommand(os.Stdout, os.Stderr).Execute(); err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		os.Exit(1)
	}
}
