// Package builtin holds kubectl-reflect's built-in controllers and the
// registry that `kubectl reflect run-controller` and `serve --controllers`
// start them from (through pkg/manager). Each built-in lives in its own
// subpackage (configmapgenerator, mirror) whose Builtin function (no init)
// returns its Spec: its name, what it does, the kinds it reads and writes
// (for --list and for least-privilege RBAC), the CRD it needs, and how to
// build it on an Env. The command's root puts them in a Registry.
//
// It is named apart from pkg/controller, the library every built-in is
// written with: the library knows no controller, and this package holds
// no runner.
package builtin
