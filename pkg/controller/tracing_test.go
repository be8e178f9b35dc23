package controller

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/kubectl-reflect/kubectl-reflect/internal/reflectortest"
)

func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]string {
	out := map[attribute.Key]string{}
	for _, kv := range s.Attributes() {
		out[kv.Key] = kv.Value.Emit()
	}
	return out
}

func TestReconcileSpans(t *testing.T) {
	apiServer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"apiVersion":"kubectl-reflect.io/v1alpha1","kind":"ConfigMapGenerator","metadata":{"namespace":"ns1","name":"g1","uid":"u1","resourceVersion":"8"}}`)
	}))
	defer apiServer.Close()
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	defer tp.Shutdown(context.Background())
	cfg := &rest.Config{Host: apiServer.URL}
	WrapConfigForTracing(cfg, tp)
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}

	synctest.Test(t, func(t *testing.T) {
		srv := reflectortest.NewServer()
		apply(t, srv, generators, generator("ns1", "g1"))
		apply(t, srv, generators, generator("ns1", "bad"))
		r := &recorder{fn: func(ctx context.Context, req Request) (Result, error) {
			if req.Name == "bad" {
				return Result{}, Terminal(errors.New("invalid spec"))
			}
			return Result{}, nil
		}}
		c, _ := newTestController(t, srv, r, Options{TracerProvider: tp})
		stop := started(t, c)
		synctest.Wait()
		if err := stop(); err != nil {
			t.Fatal(err)
		}
	})
	// An API call from a reconcile's ctx is its child (outside the bubble:
	// the call goes over a real connection).
	ctx, span := tp.Tracer("test").Start(context.Background(), "Reconcile")
	if _, err := client.Resource(generators.GVR).Namespace("ns1").Get(ctx, "g1", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	span.End()

	got := map[string]map[attribute.Key]string{}
	var child sdktrace.ReadOnlySpan
	for _, s := range spans.Ended() {
		switch {
		case s.Name() == "Reconcile" && s.InstrumentationScope().Name == tracerName:
			got[attrs(s)["name"]] = attrs(s)
		case s.Parent().SpanID() == span.SpanContext().SpanID():
			child = s
		}
	}
	want := map[string]map[attribute.Key]string{
		"g1": {"controller": "test", "namespace": "ns1", "name": "g1", "trigger": "change", "result": "success",
			"trigger.resource": "configmapgenerators.kubectl-reflect.io", "trigger.object": "ns1/g1"},
		"bad": {"controller": "test", "namespace": "ns1", "name": "bad", "trigger": "change", "result": "error"},
	}
	for name, w := range want {
		for k, v := range w {
			if got[name][k] != v {
				t.Errorf("span of %s: %s = %q, want %q (all: %v)", name, k, got[name][k], v, got[name])
			}
		}
		if got[name]["reconcile_id"] == "" {
			t.Errorf("span of %s has no reconcile_id", name)
		}
	}
	if child == nil || !strings.Contains(child.Name(), "GET") {
		t.Errorf("no child span of the API call, spans: %v", spans.Ended())
	}
}

func TestTracerProviderWithoutEndpointIsNoop(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	tp, shutdown, err := NewTracerProvider(t.Context(), "kubectl-reflect")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := tp.(noop.TracerProvider); !ok {
		t.Fatalf("tracer provider %T without an endpoint, want a no-op one", tp)
	}
	for _, tp := range []trace.TracerProvider{nil, tp} {
		cfg := &rest.Config{}
		WrapConfigForTracing(cfg, tp)
		if cfg.WrapTransport != nil {
			t.Errorf("WrapConfigForTracing(%T) wrapped the transport", tp)
		}
	}
	if err := shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
}

func TestTracerProviderExportsOTLP(t *testing.T) {
	got := make(chan string, 10)
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- r.URL.Path + " " + string(body)
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer collector.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	tp, shutdown, err := NewTracerProvider(t.Context(), "kubectl-reflect")
	if err != nil {
		t.Fatal(err)
	}
	_, span := tp.Tracer(tracerName).Start(t.Context(), "Reconcile")
	span.End()
	if err := shutdown(t.Context()); err != nil { // flushes
		t.Fatal(err)
	}
	req := <-got
	if !strings.HasPrefix(req, "/v1/traces ") || !strings.Contains(req, "Reconcile") || !strings.Contains(req, "kubectl-reflect") {
		t.Fatalf("the collector got %q, want the span on /v1/traces", req)
	}
}
