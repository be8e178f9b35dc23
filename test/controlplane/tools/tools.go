//go:build tools

// Package tools only names the control-plane commands so that go mod tidy
// keeps their dependencies; the harness in test/controlplane builds them with
// go build from this directory.
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
