package manager

import (
	"fmt"

	"go.opentelemetry.io/otel/trace"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/controller"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
)

// ClientConfig is a copy of cfg as the controllers' clients use it, and a
// Set of their own should too: no client-side rate limit (the server's
// flow control limits us; a token bucket would only add latency), over
// HTTP/1.1 as the reflectors (no HPACK per request and no hand-off per
// answer: make bench's controller.cpu.http2 row), and built-in kinds'
// answers (an apply's result, Leases, Events) as protobuf, as
// controller-runtime and kubectl ask: cheaper to decode than JSON. The
// reflectors (kube.NewRESTClient) and the dynamic client read JSON
// whatever this says.
func ClientConfig(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = -1, 0
	kube.OverHTTP1(cfg)
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	return cfg
}

// writeClients are the clients the controllers write with: their calls
// are spans of the run's tracer provider (the reflectors' are not: a
// watch would be a span as long as the watch).
type writeClients struct {
	kube    kubernetes.Interface
	dynamic dynamic.Interface
}

// newClients makes the write clients, and plain, a client for the rest
// (leader election, Events) whose calls are no spans.
func newClients(user *rest.Config, tp trace.TracerProvider) (writeClients, kubernetes.Interface, error) {
	cfg := ClientConfig(user)
	writes := rest.CopyConfig(cfg)
	controller.WrapConfigForTracing(writes, tp)
	var w writeClients
	var err error
	if w.kube, err = kubernetes.NewForConfig(writes); err != nil {
		return w, nil, fmt.Errorf("creating a client: %w", err)
	}
	if w.dynamic, err = dynamic.NewForConfig(writes); err != nil {
		return w, nil, fmt.Errorf("creating a client: %w", err)
	}
	plain, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return w, nil, fmt.Errorf("creating a client: %w", err)
	}
	return w, plain, nil
}
