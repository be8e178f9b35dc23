// Package serve is `kubectl reflect serve` and its `status` and `stop`:
// flags to a daemon.Config, then daemon.Run (the process itself, its
// lock, reflectors, TLS, socket, idle exit and controllers, lives in
// pkg/daemon); control.go asks a running daemon through pkg/daemon's
// client and hands `serve status`'s answer to internal/statusview, which
// prints it; controllers.go is --controllers, the built-ins whose kinds
// the daemon then serves too.
package serve
