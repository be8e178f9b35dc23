// Package e2e holds the end-to-end tests: the built kubectl-reflect binary
// against a real local control plane (test/controlplane), and the example
// program of the library (examples/watchconfigmaps, library_test.go). They
// are skipped under -short.
package e2e
