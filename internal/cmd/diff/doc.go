// Package diff is `kubectl reflect diff`: the objects of a kind, or named
// ones, compared in two states, two moments of one context's history
// (`--at T1 [--at T2]`, the second now by default) or several contexts
// (`--context a,b[,c]`, now or `--at T` from each context's own history),
// printed by output.Compare as unified diffs of YAML.
//
// diff.go has the command, its flags and their checks; read.go reads one
// context (a source): what its reflector lists now, or what its history
// holds at a moment (pkg/history, as get --at reads it); run.go makes the
// states (sides) to compare, reads them at once and prints. It exits as
// diff(1) and kubectl diff do: 0 when equal, 1 when different
// (cli.Exit), 2 on an error (cli.WithExitCode). run_test.go checks the
// states made of the flags and their names.
package diff
