package controller

import (
	"context"
	"fmt"
	"net/http"
	"os"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
	"k8s.io/client-go/rest"
)

// tracerName names the spans' instrumentation scope.
const tracerName = "github.com/kubectl-reflect/kubectl-reflect/pkg/controller"

// NewTracerProvider returns the tracer provider of a process: one that
// exports over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set (the exporter reads the other
// OTEL_EXPORTER_OTLP_* variables too), else a no-op one that starts no
// goroutine. shutdown flushes the spans not yet exported and stops the
// exporter; it must be called.
func NewTracerProvider(ctx context.Context, serviceName string) (tp trace.TracerProvider, shutdown func(context.Context) error, err error) {
	if os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" {
		return noop.NewTracerProvider(), func(context.Context) error { return nil }, nil
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("OTLP trace exporter: %w", err)
	}
	res := resource.NewSchemaless(semconv.ServiceName(serviceName))
	sdk := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return sdk, sdk.Shutdown, nil
}

// WrapConfigForTracing makes the API calls of clients made from cfg child
// spans of the span in their request's ctx (a reconcile's), through
// otelhttp's transport and tp. A nil or no-op tp wraps nothing: otelhttp's
// transport costs CPU on every call even when it records nothing (5% of a
// configmap-generator's in make bench). Wrap the config of the clients
// that write, not the reflectors': a watch would be one span as long as
// the watch.
func WrapConfigForTracing(cfg *rest.Config, tp trace.TracerProvider) {
	if _, noSpans := tp.(noop.TracerProvider); tp == nil || noSpans {
		return
	}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return otelhttp.NewTransport(rt, otelhttp.WithTracerProvider(tp))
	})
}

// startSpan starts the span of one reconcile.
// A change also names the changed object: its resource and key.
func (c *Controller) startSpan(ctx context.Context, req Request, t Trigger, id string) (context.Context, trace.Span) {
	attrs := []attribute.KeyValue{
		attribute.String("controller", c.name),
		attribute.String("namespace", req.Namespace),
		attribute.String("name", req.Name),
		attribute.String("trigger", t.Kind.String()),
		attribute.String("reconcile_id", id),
	}
	if t.Kind == TriggerChange && t.Resource != "" {
		attrs = append(attrs, attribute.String("trigger.resource", t.Resource), attribute.String("trigger.object", t.Key.String()))
	}
	return c.tracer.Start(ctx, "Reconcile", trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
}

// endSpan records the reconcile's result on its span and ends it.
func endSpan(span trace.Span, res Result, err error) {
	span.SetAttributes(attribute.String("result", resultOf(res, err)))
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}
