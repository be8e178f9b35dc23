// Package failover is the client get and watch read a daemon's kinds
// through (`kubectl reflect serve`'s daemon, pkg/daemon): a
// reflector.Client (Client, failover.go) that asks the daemon until it
// fails to answer (no connection, or a stream that breaks off: an API
// status is an answer), then the API server, for good (Gone is shared by
// the command's clients); a resource the daemon refuses (403: the API
// server refused the daemon, which asks as the same user) is read from the
// API server, as without a daemon. Clients (clients.go) makes a command's
// clients: a Client for the kinds a found daemon reads (it caches them, or
// adds them on demand), the API server's for the others.
//
// It needs no relist: the daemon's resourceVersions are the API server's
// (the daemon's store keeps those its watch brought), so a watch that
// broke off at the daemon is opened again at the server from the last
// resourceVersion delivered, inside the stream the watcher reads; the
// watcher sees neither a gap nor a repeated event. A list broken off
// after its first page is the watcher's to start again (the daemon's
// continue token means nothing to the server), as is a streaming list
// broken off before its initial events ended.
//
// It exists apart from pkg/daemon because it is the commands' side, not
// the daemon's: it reads pkg/watch's requests and streams, which the
// daemon process never needs, and pkg/daemon does not import it. It does
// not find the daemon (pkg/daemon's Find does), does not start or stop
// one, and does not retry the daemon once it is gone.
package failover
