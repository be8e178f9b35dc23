// Package testkit holds what the end-to-end test packages (test/e2e,
// test/controllers, test/demo) share: building kubectl-reflect and the
// control plane once per package (Main), a namespace per test, an admin
// clientset, and a buffer safe for a process's output. It exists so that
// each package keeps only the helpers of its own subject.
package testkit
