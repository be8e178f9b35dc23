package cmd

import (
	"fmt"
	"net/http"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/daemon"
)

// listenSocket serves srv at the daemon's unix socket too, beside its
// address, so that its clients of this plugin (daemon.Find) skip TCP; the
// same TLS and token. A socket that cannot be made (its path longer than
// a socket's may be) is left out, said on ErrOut: the address serves. The
// server's end is sent on served.
func (o *ServeOptions) listenSocket(srv *http.Server, lock *daemon.Lock, served chan<- error) {
	ln, err := lock.ListenSocket()
	if err != nil {
		fmt.Fprintf(o.ErrOut, "Warning: no unix socket: %v\n", err)
		return
	}
	go func() { served <- srv.ServeTLS(ln, "", "") }()
}
