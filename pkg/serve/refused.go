package serve

import (
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// refusedFor is how long the handler remembers that the API server refused
// a user a resource in every namespace (403): a request of one namespace
// within it goes straight to that namespace's cache, and costs one LIST at
// the API server, as kubectl's request would, rather than two, whether the
// user may read that namespace or not. A grant of every namespace made
// meanwhile is used once it passes.
const refusedFor = time.Minute

// refuse remembers that the API server refused gvr in every namespace.
func (d *onDemand) refuse(gvr schema.GroupVersionResource) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.refused[gvr] = d.now()
}

// refusedLately reports whether the API server refused gvr in every
// namespace within refusedFor.
func (d *onDemand) refusedLately(gvr schema.GroupVersionResource) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	at, ok := d.refused[gvr]
	if ok && d.now().Sub(at) >= refusedFor {
		delete(d.refused, gvr)
		return false
	}
	return ok
}
