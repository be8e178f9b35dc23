//go:build tools

// Package tools only names kwok's command so that go mod tidy keeps its
// dependencies; the harness in test/controlplane builds it with go build
// from this directory and copies kwok's stage files from the module.
package tools

import (
	_ "sigs.k8s.io/kwok/cmd/kwok"
)
