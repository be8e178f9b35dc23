package kube

import (
	"net"
	"os"
	"time"

	"k8s.io/client-go/rest"
)

// keepAlive finds a peer that vanished without closing the connection (a
// laptop that slept, a network that changed): TCP probes after 15s without
// a byte, every 5s, six unanswered ones closing it, 45s in all, as soon as
// HTTP/2's PING health check finds it for client-go (30s, then 15s). The
// kernel sends the probes: it costs the process nothing.
var keepAlive = net.KeepAliveConfig{Enable: true, Idle: 15 * time.Second, Interval: 5 * time.Second, Count: 6}

// HTTP2Env names the environment variable that keeps HTTP/2 (any value but
// empty): for a comparison, or a proxy in the way that needs it.
const HTTP2Env = "KUBECTL_REFLECT_HTTP2"

// OverHTTP1 makes cfg's connections HTTP/1.1, unless HTTP2Env is set, with
// keepAlive's probes unless cfg dials its own way (a daemon's Unix socket).
// A watch's events and a list's body then come straight from their own
// connection: HTTP/2 hands every DATA frame from the connection's read loop
// to the stream's reader (a goroutine wakeup) and writes a WINDOW_UPDATE
// every 4 KiB read, which made a watch over HTTP/2 spend 1.10 to 1.16 times
// the CPU per live event of the same watch over HTTP/1.1 (make bench
// measures both side by side: the live.cpu.http2 row; a controller's:
// controller.cpu.http2); a store's sync of 20,000 ConfigMaps went from
// 1.00x to 0.66x-0.71x of the typed informer's time (BENCHMARKS.md before
// and after). Each watch holds a connection of its own, as with kube-rs's
// client. What HTTP/2's PING health check finds, keepAlive finds for a peer
// that is gone, and the watcher for a connection that stays open and
// carries nothing (watch.Options.SilenceTimeout). Calling it again on a
// config it made is a no-op.
func OverHTTP1(cfg *rest.Config) {
	if os.Getenv(HTTP2Env) != "" {
		return
	}
	cfg.NextProtos = []string{"http/1.1"}
	if cfg.Dial == nil {
		d := net.Dialer{Timeout: 30 * time.Second, KeepAliveConfig: keepAlive}
		cfg.Dial = d.DialContext
	}
}
