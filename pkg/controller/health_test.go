package controller

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kubectl-reflect/kubectl-reflect/internal/reflectortest"
)

func get(t *testing.T, h http.Handler, path string) (int, string) {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
	return w.Code, w.Body.String()
}

func TestHealthHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := reflectortest.NewServer()
		apply(t, srv, generators, generator("ns1", "g1"))
		reg := prometheus.NewRegistry()
		c, _ := newTestController(t, srv, &recorder{}, Options{Metrics: NewMetrics(reg)})
		var leading atomic.Bool
		leading.Store(true)
		h := NewHealthHandler(HealthOptions{Gatherer: reg, Controllers: []*Controller{c}, Leading: leading.Load})

		tests := []struct {
			path     string
			wantCode int
			wantBody string
		}{
			{"/healthz", 200, "ok"},
			{"/healthz?verbose", 200, "[+]ping ok\nhealthz check passed\n"},
			{"/readyz", 500, "[-]test failed: reason withheld\nhealthz check failed\n"},
		}
		for _, tt := range tests {
			if code, body := get(t, h, tt.path); code != tt.wantCode || body != tt.wantBody {
				t.Errorf("GET %s before the controller synced = %d %q, want %d %q", tt.path, code, body, tt.wantCode, tt.wantBody)
			}
		}
		leading.Store(false)
		if code, body := get(t, h, "/readyz"); code != 200 || body != "ok" {
			t.Errorf("GET /readyz on a standby = %d %q, want 200 ok", code, body)
		}
		leading.Store(true)

		stop := started(t, c)
		synctest.Wait()
		if code, body := get(t, h, "/readyz?verbose"); code != 200 || body != "[+]test ok\nhealthz check passed\n" {
			t.Errorf("GET /readyz?verbose once synced = %d %q, want 200 and the controller's line", code, body)
		}
		if code, body := get(t, h, "/metrics"); code != 200 || !strings.Contains(body, `controller_runtime_reconcile_total{controller="test",result="success"} 1`) {
			t.Errorf("GET /metrics = %d %q, want the reconcile counted", code, body)
		}
		if err := stop(); err != nil {
			t.Fatal(err)
		}
	})
}

func TestHealthServer(t *testing.T) {
	s, err := ListenHealth("127.0.0.1:0", HealthOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	resp, err := http.Get("http://" + s.Addr().String() + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "ok" {
		t.Errorf("GET /readyz with no controller = %d %q, want 200 ok", resp.StatusCode, body)
	}
	http.DefaultClient.CloseIdleConnections()
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run returned %v after ctx ended, want nil", err)
	}
	again, err := ListenHealth(s.Addr().String(), HealthOptions{})
	if err != nil {
		t.Fatalf("the address is still taken after Run returned: %v", err)
	}
	again.ln.Close()
}

func TestListenHealthFailsOnAPortInUse(t *testing.T) {
	s, err := ListenHealth("127.0.0.1:0", HealthOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.ln.Close()
	if _, err := ListenHealth(s.Addr().String(), HealthOptions{}); err == nil {
		t.Fatal("a second server on the same port listened")
	}
}
