// Package cmd is the root command, `kubectl reflect`, laid out as kubectl
// lays out its own: one package per verb under it (watch, get, serve, diff, timeline,
// runcontroller, crd, completion, version), each with its Options
// (Complete, Validate, Run) and NewCmd, and the plumbing they share in
// cli. The verbs only wire flags to the packages under pkg/ that do the
// work: pkg/flatten and pkg/output for what watch and get print,
// pkg/daemon for serve, pkg/manager for run-controller.
//
// root.go builds the root command (the kubeconfig flags, -v, the
// server's warnings, the registry of built-in controllers, builtins.go)
// and Execute prints an error once, as `error: ...`, and returns the exit
// code; profile.go is the hidden --profile flag of the benchmarks.
//
// It is internal because its only user is cmd/kubectl-reflect.
package cmd
