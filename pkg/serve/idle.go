package serve

import (
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Releasing the idle. A resource added on demand costs a reflector: a
// WATCH at the API server and a store of every object. With
// OnDemand.ReleaseIdle, one that no request has used for that long, with
// no watch open, is dropped as if its reflector had stopped: the next
// request adds it again (one LIST). A daemon that outlives the clients
// that browsed many kinds (k9s keeps a watch of each kind it showed until
// it quits) then holds memory only for what is still read; the resources
// given (Options.Resources), and those Handler.Keep adds, are kept
// whatever happens.

// uses counts the requests being answered from a cached resource and
// remembers when the last one ended.
type uses struct {
	busy atomic.Int64 // requests being answered, open watches included
	last atomic.Int64 // unix nanoseconds: the last request's end, or the resource's start
}

func (u *uses) begin() { u.busy.Add(1) }

func (u *uses) end(now time.Time) {
	u.last.Store(now.UnixNano())
	u.busy.Add(-1)
}

// idleFor reports whether no request is being answered and none ended
// within d before now.
func (u *uses) idleFor(d time.Duration, now time.Time) bool {
	return u.busy.Load() == 0 && now.Sub(time.Unix(0, u.last.Load())) >= d
}

// acquire returns the resource that answers gvr in namespace, as lookup
// does, counted as in use (uses.begin) under the lock that dropIdle takes,
// so that a resource is never dropped as idle between a request's lookup
// and its use. The caller ends the use.
func (h *Handler) acquire(gvr schema.GroupVersionResource, namespace string) *cached {
	h.mu.RLock()
	defer h.mu.RUnlock()
	c := h.lookupLocked(gvr, namespace)
	if c != nil {
		c.uses.begin()
	}
	return c
}

// dropIdle stops serving c (under s) if it has been idle for
// OnDemand.ReleaseIdle and is not kept (Handler.Keep), and reports whether
// it did.
func (h *Handler) dropIdle(s scope, c *cached) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if c.kept.Load() || !c.uses.idleFor(h.onDemand.ReleaseIdle, h.onDemand.now()) {
		return false
	}
	delete(h.resources, s)
	return true
}

// idleChecks ticks as often as a resource's idleness is looked at: a
// quarter of OnDemand.ReleaseIdle, so that one is dropped at most a
// quarter late; nil (never) without ReleaseIdle.
func (d *onDemand) idleChecks() (<-chan time.Time, func()) {
	if d.ReleaseIdle <= 0 {
		return nil, func() {}
	}
	t := time.NewTicker(max(d.ReleaseIdle/4, 10*time.Millisecond))
	return t.C, t.Stop
}
