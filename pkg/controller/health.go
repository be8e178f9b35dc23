package controller

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// HealthOptions say what a health server serves.
type HealthOptions struct {
	// Gatherer is served on /metrics (the registry given to NewMetrics);
	// nil serves no /metrics.
	Gatherer prometheus.Gatherer
	// Controllers must all be Ready for /readyz to answer ok.
	Controllers []*Controller
	// Leading, with leader election, says whether this process leads. A
	// process that does not runs no controller, and /readyz answers ok:
	// readiness is about caches, as in controller-runtime, and a standby
	// has none to wait for. nil: the controllers always run.
	Leading func() bool
}

// NewHealthHandler serves /metrics (promhttp), /healthz (ok while the
// process serves) and /readyz (ok once every controller is Ready), with
// controller-runtime's plain-text bodies: "ok", or with ?verbose one
// "[+]name ok" line per check; a failed check answers 500 with its
// "[-]name failed: reason withheld" line and "healthz check failed".
func NewHealthHandler(opts HealthOptions) http.Handler {
	mux := http.NewServeMux()
	if opts.Gatherer != nil {
		mux.Handle("GET /metrics", promhttp.HandlerFor(opts.Gatherer, promhttp.HandlerOpts{}))
	}
	mux.Handle("GET /healthz", checks{{name: "ping", check: func() bool { return true }}})
	ready := checks{}
	for _, c := range opts.Controllers {
		ready = append(ready, check{name: c.Name(), check: func() bool {
			return (opts.Leading != nil && !opts.Leading()) || c.IsReady()
		}})
	}
	if len(ready) == 0 {
		ready = checks{{name: "ping", check: func() bool { return true }}}
	}
	mux.Handle("GET /readyz", ready)
	return mux
}

type check struct {
	name  string
	check func() bool
}

// checks serve one health endpoint: every check must pass.
type checks []check

func (cs checks) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var out bytes.Buffer
	failed := false
	for _, c := range cs {
		if c.check() {
			fmt.Fprintf(&out, "[+]%s ok\n", c.name)
		} else {
			fmt.Fprintf(&out, "[-]%s failed: reason withheld\n", c.name)
			failed = true
		}
	}
	if failed {
		http.Error(w, out.String()+"healthz check failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if _, verbose := r.URL.Query()["verbose"]; !verbose {
		fmt.Fprint(w, "ok")
		return
	}
	out.WriteString("healthz check passed\n")
	_, _ = out.WriteTo(w)
}

// HealthServer serves a health handler on an address (--metrics-addr).
type HealthServer struct {
	ln  net.Listener
	srv *http.Server
}

// ListenHealth listens on addr now, so that a port in use fails at once
// and Addr knows a ":0" port; Run serves.
func ListenHealth(addr string, opts HealthOptions) (*HealthServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics and health server: %w", err)
	}
	return &HealthServer{ln: ln, srv: &http.Server{Handler: NewHealthHandler(opts), ReadHeaderTimeout: 10 * time.Second}}, nil
}

// Addr is the address the server listens on.
func (s *HealthServer) Addr() net.Addr { return s.ln.Addr() }

// Run serves until ctx ends, then shuts down, waiting a few seconds at
// most for the requests in flight; it returns nil then, or why serving
// failed.
func (s *HealthServer) Run(ctx context.Context) error {
	served := make(chan error, 1)
	go func() { served <- s.srv.Serve(s.ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("metrics and health server: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(shutdownCtx); err != nil {
		_ = s.srv.Close()
	}
	<-served // http.ErrServerClosed
	return nil
}
