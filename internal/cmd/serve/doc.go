// Package serve is `kubectl reflect serve` and its `status` and `stop`:
// flags to a daemon.Config, then daemon.Run (the process itself, its
// lock, reflectors, TLS, socket, idle exit and controllers, lives in
// pkg/daemon); control.go asks a running daemon through pkg/daemon's
// client, and status.go prints what `serve status` shows from the
// daemon's Status and Info; controllers.go is --controllers, the built-ins whose kinds the
// daemon then serves too.
package serve
