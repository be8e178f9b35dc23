package daemon

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/serve"
)

// serve listens, publishes its kubeconfig and Info in lock's files, and
// serves h until ctx ends, --idle-exit passes, a reflector stops for good
// or a controller fails (failed); then it ends the watches and stops
// listening (Run's caller removes the files).
func (d *daemonRun) serve(ctx context.Context, h http.Handler, handles []*reflector.Handle, lock *Lock, failed <-chan error) error {
	cred, err := newCredentials()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(d.cfg.Port)))
	if err != nil {
		return fmt.Errorf("listening: %w", err)
	}
	server := "https://" + ln.Addr().String()
	kubeconfig, err := kubeconfigFor(server, d.cfg.KubeconfigNamespace, cred)
	if err == nil {
		err = d.published.publish(lock, kubeconfig, d.info(server))
	}
	if err != nil {
		ln.Close()
		return err
	}

	serveCtx, stop := context.WithCancel(ctx)
	defer stop()
	idle := newIdleExit(d.cfg.IdleExit)
	defer idle.Stop()
	srv := cred.server(serveCtx, idle.wrap(serve.WithToken(h, cred.token)))
	fmt.Fprintf(d.cfg.ErrOut, "Serving %s read-only at %s\nkubeconfig: %s\n", d.kinds(), server, lock.Kubeconfig)
	if d.cfg.Out != nil {
		if _, err := d.cfg.Out.Write(kubeconfig); err != nil {
			ln.Close()
			return fmt.Errorf("printing the kubeconfig: %w", err)
		}
	}
	served := make(chan error, 2)
	go func() { served <- srv.ServeTLS(ln, "", "") }()
	d.listenSocket(srv, lock, served)
	if d.cfg.Serving != nil {
		d.cfg.Serving(kubeconfig)
	}
	var runErr error
	select {
	case <-ctx.Done():
	case <-idle.Idle():
		fmt.Fprintf(d.cfg.ErrOut, "No request for %s: exiting\n", d.cfg.IdleExit)
	case err := <-served:
		runErr = fmt.Errorf("serving: %w", err)
	case err := <-stopped(handles):
		runErr = err
	case err := <-failed:
		runErr = err
	}
	stop()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutdownCtx)
	return runErr
}

// listenSocket serves srv at the daemon's unix socket too, beside its
// address, so that its clients of this plugin (Find) skip TCP; the same
// TLS and token. A socket that cannot be made (its path longer than a
// socket's may be) is left out, said on ErrOut: the address serves. The
// server's end is sent on served.
func (d *daemonRun) listenSocket(srv *http.Server, lock *Lock, served chan<- error) {
	ln, err := lock.ListenSocket()
	if err != nil {
		fmt.Fprintf(d.cfg.ErrOut, "Warning: no unix socket: %v\n", err)
		return
	}
	go func() { served <- srv.ServeTLS(ln, "", "") }()
}

// stopped receives the error of the first reflector that stops for good.
func stopped(handles []*reflector.Handle) <-chan error {
	ch := make(chan error, len(handles))
	for _, h := range handles {
		go func() {
			<-h.Done()
			if err := h.Err(); err != nil {
				ch <- err
			}
		}()
	}
	return ch
}
