package kube

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// TestTransport: the REST client's requests go over HTTP/1.1 to a server
// that speaks HTTP/2 too, on connections with keepAlive's probes, unless
// HTTP2Env is set; a config that dials its own way (a daemon's Unix
// socket) keeps its dialer.
func TestTransport(t *testing.T) {
	tests := []struct {
		name      string
		http2     bool // HTTP2Env set
		ownDial   bool
		wantProto string
	}{
		{name: "HTTP/1.1 by default", wantProto: "HTTP/1.1"},
		{name: "HTTP/2 with " + HTTP2Env, http2: true, wantProto: "HTTP/2.0"},
		{name: "a config's own dialer is kept", ownDial: true, wantProto: "HTTP/1.1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.http2 {
				t.Setenv(HTTP2Env, "1")
			}
			var proto string
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				proto = r.Proto
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(emptyConfigMapList))
			}))
			srv.EnableHTTP2 = true
			srv.StartTLS()
			defer srv.Close()
			cfg := &rest.Config{Host: srv.URL, TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
			ownDials := 0
			if tc.ownDial {
				var d net.Dialer
				cfg.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
					ownDials++
					return d.DialContext(ctx, network, addr)
				}
			}
			rc, err := NewRESTClient(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := rc.Get().AbsPath("/api/v1/configmaps").Do(t.Context()).Error(); err != nil {
				t.Fatal(err)
			}
			if proto != tc.wantProto {
				t.Errorf("the server was asked over %s, want %s", proto, tc.wantProto)
			}
			if tc.ownDial && ownDials != 1 {
				t.Errorf("the config's own dialer dialed %d times, want 1", ownDials)
			}
			if cfg.NextProtos != nil || (cfg.Dial == nil) == tc.ownDial {
				t.Error("NewRESTClient changed the caller's config")
			}
		})
	}
}

// TestKeepAlive pins the probes: 15s idle, then every 5s, six unanswered
// close the connection, 45s in all, as HTTP/2's health check for client-go.
func TestKeepAlive(t *testing.T) {
	cfg := &rest.Config{}
	OverHTTP1(cfg)
	if cfg.Dial == nil || len(cfg.NextProtos) != 1 || cfg.NextProtos[0] != "http/1.1" {
		t.Fatalf("OverHTTP1: Dial set %v, NextProtos %q", cfg.Dial != nil, cfg.NextProtos)
	}
	if dead := keepAlive.Idle + keepAlive.Interval*time.Duration(keepAlive.Count); !keepAlive.Enable || dead != 45*time.Second {
		t.Errorf("keepAlive %+v finds a dead peer after %v, want 45s", keepAlive, dead)
	}
}
