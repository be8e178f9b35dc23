// Package controllers holds kubectl-reflect's built-in controllers and the
// registry that `kubectl reflect run-controller` (and the daemon) start them
// from. Each built-in lives in its own subpackage (configmapgenerator,
// mirror) and returns its Builtin from a Builtin function (no init): its name, what it does, the kinds it
// reads and writes (for --list and for least-privilege RBAC), the CRD it
// needs, and how to build it on an Env. internal/cmd puts them in a Registry.
//
// It exists apart from pkg/controller so that the library knows no
// controller, and apart from internal/cmd so that the command is wiring only.
package controllers
