//go:build linux

package main

import (
	"context"
	"fmt"
	"io"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// apiserverWatches is the API server's own count of the WATCH requests for
// ConfigMaps it is serving now (all scopes).
func apiserverWatches(ctx context.Context, e *env) (int, error) {
	v, err := apiserverMetric(ctx, e, "apiserver_longrunning_requests", map[string]string{"verb": "WATCH", "resource": "configmaps"})
	return int(v), err
}

// apiserverLists is the API server's count of the LIST requests for
// ConfigMaps it has answered since it started.
func apiserverLists(ctx context.Context, e *env) (int, error) {
	v, err := apiserverMetric(ctx, e, "apiserver_request_total", map[string]string{"verb": "LIST", "resource": "configmaps"})
	return int(v), err
}

// controllerWrites counts the API server's answers to the writes a
// ConfigMapGenerator controller makes (the benchmark makes none of these
// kinds: it creates generators with POST).
type controllerWrites struct {
	applies       int // server-side applies of ConfigMaps
	statusApplies int // server-side applies of a generator's status
}

func (w controllerWrites) minus(o controllerWrites) controllerWrites {
	return controllerWrites{applies: w.applies - o.applies, statusApplies: w.statusApplies - o.statusApplies}
}

// readControllerWrites reads the API server's apiserver_request_total for
// the controllers' applies (verb APPLY) since it started, from one read of
// its metrics.
func readControllerWrites(ctx context.Context, e *env) (controllerWrites, error) {
	families, err := apiserverFamilies(ctx, e)
	if err != nil {
		return controllerWrites{}, err
	}
	cm := sumFamily(families, "apiserver_request_total", map[string]string{"verb": "APPLY", "resource": "configmaps"})
	st := sumFamily(families, "apiserver_request_total", map[string]string{"verb": "APPLY", "resource": generators.Resource, "subresource": "status"})
	return controllerWrites{applies: int(cm), statusApplies: int(st)}, nil
}

// apiserverMetric reads the API server's /metrics and sums the samples of
// the metric name whose labels include labels.
func apiserverMetric(ctx context.Context, e *env, name string, labels map[string]string) (float64, error) {
	families, err := apiserverFamilies(ctx, e)
	if err != nil {
		return 0, err
	}
	return sumFamily(families, name, labels), nil
}

// apiserverFamilies reads and parses the API server's /metrics.
func apiserverFamilies(ctx context.Context, e *env) (map[string]*dto.MetricFamily, error) {
	raw, err := e.clients.cs.CoreV1().RESTClient().Get().AbsPath("/metrics").Stream(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the API server's metrics: %w", err)
	}
	defer raw.Close()
	families, err := parseMetrics(raw)
	if err != nil {
		return nil, fmt.Errorf("read the API server's metrics: %w", err)
	}
	return families, nil
}

// sumMetric parses metrics in Prometheus's text format and sums the
// samples of the metric name whose labels include labels (sumFamily).
func sumMetric(r io.Reader, name string, labels map[string]string) (float64, error) {
	families, err := parseMetrics(r)
	if err != nil {
		return 0, err
	}
	return sumFamily(families, name, labels), nil
}

func parseMetrics(r io.Reader) (map[string]*dto.MetricFamily, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(r)
}

// sumFamily sums the samples (gauge, counter or untyped) of the metric
// name whose labels include labels; 0 when there is none.
func sumFamily(families map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	var sum float64
	for _, m := range families[name].GetMetric() {
		if !hasLabels(m.GetLabel(), labels) {
			continue
		}
		switch {
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Untyped != nil:
			sum += m.Untyped.GetValue()
		}
	}
	return sum
}

// hasLabels says whether have holds every label of want, with its value.
func hasLabels(have []*dto.LabelPair, want map[string]string) bool {
	found := 0
	for _, l := range have {
		if v, ok := want[l.GetName()]; ok {
			if v != l.GetValue() {
				return false
			}
			found++
		}
	}
	return found == len(want)
}
