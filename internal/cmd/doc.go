// Package cmd wires command-line flags to kubectl-reflect's packages: one
// cobra command per verb, each with an Options struct whose Complete,
// Validate and Run do what their names say. Commands hold no logic that
// pkg/watch, pkg/store, pkg/kube or pkg/output should own.
//
// It is internal because its only user is cmd/kubectl-reflect.
package cmd
