package serve

import (
	"cmp"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// ResourceStatus is what the handler reports of one resource at
// /debug/status.
type ResourceStatus struct {
	// Resource is "resource.group" ("configmaps", "deployments.apps").
	Resource string `json:"resource"`
	// Namespace is the one namespace the resource's cache holds (given so,
	// or added so for a user whom the API server refuses every namespace);
	// "" for every namespace.
	Namespace       string `json:"namespace,omitempty"`
	Objects         int    `json:"objects"`
	ResourceVersion string `json:"resourceVersion"`
	// Watchers are the WATCHes open now.
	Watchers int64 `json:"watchers"`
	// EventsSent are the watch events written since the start, bookmarks
	// included.
	EventsSent int64 `json:"eventsSent"`
	// LagSeconds is how far behind the resource's watches are: the longest
	// time a live change waited between its arrival in the store and its
	// event's flush to a client, among the events delivered in the last
	// one to two minutes and those written but not yet flushed now (a
	// client that stops reading makes it grow until its watch is cut). 0
	// when no event was delivered lately.
	LagSeconds float64 `json:"lagSeconds"`
}

// counters are a resource's watch counts.
type counters struct {
	watchers, sent atomic.Int64
}

// Status reports every resource, ordered by name, then namespace.
func (h *Handler) Status() []ResourceStatus {
	var out []ResourceStatus
	for _, c := range h.served() {
		out = append(out, ResourceStatus{
			Resource:        c.res.String(),
			Namespace:       c.Namespace,
			Objects:         objects(c.Source),
			ResourceVersion: c.Source.ResourceVersion(),
			Watchers:        c.counters.watchers.Load(),
			EventsSent:      c.counters.sent.Load(),
			LagSeconds:      c.lag.current(time.Now()).Seconds(),
		})
	}
	slices.SortFunc(out, func(a, b ResourceStatus) int {
		return cmp.Or(strings.Compare(a.Resource, b.Resource), strings.Compare(a.Namespace, b.Namespace))
	})
	return out
}

// objects counts src's objects, without a snapshot if it can.
func objects(src Source) int {
	if l, ok := src.(interface{ Len() int }); ok {
		return l.Len()
	}
	objs, _ := src.Snapshot()
	return len(objs)
}

func (h *Handler) serveStatus(w http.ResponseWriter) {
	b, err := json.Marshal(h.Status())
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}
