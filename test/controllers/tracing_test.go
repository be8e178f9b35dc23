package controllers

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"syscall"
	"testing"
)

// TestRunControllerTracing: with OTEL_EXPORTER_OTLP_ENDPOINT set, the
// reconciles are exported as OTLP spans (flushed at the latest on a
// graceful stop): the controller and the object are in them, and the
// server-side apply they made as a child span.
func TestRunControllerTracing(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	installCRD(t, cp)
	var mu sync.Mutex
	var exported []byte
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path == "/v1/traces" {
			mu.Lock()
			exported = append(exported, body...)
			mu.Unlock()
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer collector.Close()

	p := startEnv(t, cp, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + collector.URL, "OTEL_EXPORTER_OTLP_COMPRESSION=none"},
		"run-controller", "configmap-generator", "-n", ns)
	p.WaitErrLine(`^configmap-generator: ready$`)
	applyGenerator(t, cp, ns, "traced", "  data:\n    a: \"1\"\n")
	p.WaitErrLine(reconciled(ns, "traced", "ok"))
	p.Signal(syscall.SIGINT)
	if code := p.Wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, want := range []string{"configmap-generator", ns + "/traced", "PATCH", "kubectl-reflect"} {
		if !bytes.Contains(exported, []byte(want)) {
			t.Errorf("the exported spans (%d bytes) do not mention %q", len(exported), want)
		}
	}
}
