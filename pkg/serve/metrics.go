package serve

import "github.com/prometheus/client_golang/prometheus"

var (
	objectsDesc = prometheus.NewDesc("kubectl_reflect_serve_objects",
		"Objects cached, per resource.", []string{"resource"}, nil)
	watchersDesc = prometheus.NewDesc("kubectl_reflect_serve_watchers",
		"WATCH requests open, per resource.", []string{"resource"}, nil)
	sentDesc = prometheus.NewDesc("kubectl_reflect_serve_events_sent_total",
		"Watch events written to clients, bookmarks included, per resource.", []string{"resource"}, nil)
)

// collector reports a Handler's Status as metrics at each scrape.
type collector struct{ h *Handler }

// Collector returns a prometheus.Collector of h's Status: objects and open
// watches (gauges), events sent (a counter) and the subscriber lag (a
// histogram, 1 ms to 10 s) per resource.
func Collector(h *Handler) prometheus.Collector { return collector{h} }

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- objectsDesc
	ch <- watchersDesc
	ch <- sentDesc
	c.h.lag.Describe(ch)
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	for _, s := range c.h.Status() {
		ch <- prometheus.MustNewConstMetric(objectsDesc, prometheus.GaugeValue, float64(s.Objects), s.Resource)
		ch <- prometheus.MustNewConstMetric(watchersDesc, prometheus.GaugeValue, float64(s.Watchers), s.Resource)
		ch <- prometheus.MustNewConstMetric(sentDesc, prometheus.CounterValue, float64(s.EventsSent), s.Resource)
	}
	c.h.lag.Collect(ch)
}
