// Package controllers holds the end-to-end tests of `kubectl reflect
// run-controller` and `kubectl reflect crd`: the built binary (with -race)
// against one real local control plane (test/controlplane) whose
// kube-controller-manager runs the garbage collector, so that children with
// a controller ownerReference go with their owner. They are skipped under
// -short.
//
// Each test works in a namespace of its own and runs its own
// run-controller scoped to it (-n), so tests do not see each other's
// objects; the deploy tests (deploy_test.go) run deploy/'s manifests as they
// are, with -A and the fixed namespace kubectl-reflect-system, and only
// while they run. main_test.go builds the binaries and starts the control plane;
// helpers_test.go has the process (testkit.Proc), kubectl, namespace and
// wait helpers.
package controllers
