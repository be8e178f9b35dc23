// Package testkit holds what the end-to-end test packages (test/e2e,
// test/history, test/multicluster, test/controllers, test/demo, ...)
// share: building kubectl-reflect and the control plane once per package
// (Main), a namespace per test, an admin clientset, a buffer safe for a
// process's output, the manifest of a custom resource definition (crd.go:
// CRD, and Widget, the tests' own), and the processes a test runs: Proc
// (started, its stdout and stderr read line by line, waited for, killed
// when the test ends) and Run (to completion), both bounded by Patience.
// It exists so that each package keeps only the helpers of its own
// subject.
package testkit
