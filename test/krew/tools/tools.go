//go:build tools

// Package tools only names krew's commands so that go mod tidy keeps their
// dependencies: test/krew builds kubectl-krew from this module, and
// `make validate-krew-manifest` runs validate-krew-manifest from it.
package tools

import (
	_ "sigs.k8s.io/krew/cmd/krew"
	_ "sigs.k8s.io/krew/cmd/validate-krew-manifest"
)
