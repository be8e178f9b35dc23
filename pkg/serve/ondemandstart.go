package serve

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
)

// Keep serves ar's resource in every namespace as a client's first request
// of it would (OnDemand.Start), without waiting for a request, and keeps it
// as the resources given are kept: it is not released when idle
// (OnDemand.ReleaseIdle). Like a resource added on demand, it is dropped
// when its source stops for good (and Keep may be asked again then). It
// returns at once; ar has its Group and Version set, as
// OnDemand.Discovered's have. A daemon that records every kind keeps
// served, and in Status, what it records. Without OnDemand, it does
// nothing.
func (h *Handler) Keep(ar metav1.APIResource) {
	if h.onDemand == nil {
		return
	}
	_, _ = h.start(scope{gvr: schema.GroupVersionResource{Group: ar.Group, Version: ar.Version, Resource: ar.Name}}, ar, true) // stopping: nothing to keep
}

// start returns the pending start of s, starting it if no request did;
// keep marks it kept (see Keep).
func (h *Handler) start(s scope, ar metav1.APIResource, keep bool) (*pending, *apierrors.StatusError) {
	d := h.onDemand
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ctx.Err() != nil {
		return nil, apierrors.NewServiceUnavailable("the cache (kubectl reflect serve) is stopping")
	}
	if p := d.pending[s]; p != nil {
		p.keep = p.keep || keep
		return p, nil
	}
	if c := h.lookup(s.gvr, s.namespace); c != nil { // added since the caller looked
		if keep {
			c.kept.Store(true)
		}
		p := &pending{done: make(chan struct{}), c: c}
		close(p.done)
		return p, nil
	}
	p := &pending{done: make(chan struct{}), keep: keep}
	d.pending[s] = p
	d.wg.Add(1)
	go h.follow(s, ar, p)
	return p, nil
}

// follow starts caching s, serves it once it has its first list, and
// drops it when its source stops: the goroutine lives as long as the
// source.
func (h *Handler) follow(s scope, ar metav1.APIResource, p *pending) {
	d := h.onDemand
	defer d.wg.Done()
	res := kube.Resource{GVR: s.gvr, Kind: ar.Kind, Namespaced: ar.Namespaced}
	st, err := d.Start(d.ctx, res, s.namespace)
	if err != nil {
		h.settle(s, p, nil, err)
		return
	}
	src := st.Source
	defer src.Release()
	select {
	case <-src.Synced():
	case <-src.Done():
		h.settle(s, p, nil, stoppedError(src))
		return
	case <-d.ctx.Done():
		h.settle(s, p, nil, errors.New("the cache is stopping"))
		return
	}
	c := h.newCached(Resource{
		Source: src, Discovery: ar, SelectableFields: st.SelectableFields, DateColumns: st.DateColumns, Namespace: s.namespace,
	}, make(chan struct{}))
	h.settle(s, p, c, nil)
	h.serveUntilStopped(s, c, src)
	h.mu.Lock()
	delete(h.resources, s)
	h.mu.Unlock()
	h.lag.DeleteLabelValues(c.name())
	close(c.gone)
	// Released before Changed is told: a kind said released has its watch
	// ended, and the next request of it lists again rather than taking
	// the reflector still stopping.
	src.Release()
	if d.ctx.Err() == nil && s.namespace == "" {
		h.changed()
	}
}

// serveUntilStopped returns when src stops, the handler is closed or,
// with OnDemand.ReleaseIdle, c has been idle that long.
func (h *Handler) serveUntilStopped(s scope, c *cached, src Owned) {
	d := h.onDemand
	checks, stop := d.idleChecks()
	defer stop()
	for {
		select {
		case <-src.Done():
			return
		case <-d.ctx.Done():
			return
		case <-checks:
			if h.dropIdle(s, c) {
				return
			}
		}
	}
}

// settle ends p: served as c, or failed with err.
func (h *Handler) settle(s scope, p *pending, c *cached, err error) {
	d := h.onDemand
	d.mu.Lock()
	delete(d.pending, s)
	if c != nil {
		c.kept.Store(p.keep)
		h.mu.Lock()
		h.resources[s] = c
		h.mu.Unlock()
	}
	p.c, p.err = c, err
	d.mu.Unlock()
	close(p.done)
	if c != nil && s.namespace == "" {
		h.changed()
	}
}

// changed tells OnDemand.Changed what is served now.
func (h *Handler) changed() {
	d := h.onDemand
	if d.Changed == nil {
		return
	}
	d.changing.Lock()
	defer d.changing.Unlock()
	var out []kube.Resource
	for _, c := range h.served() {
		if c.Namespace == "" {
			out = append(out, c.res)
		}
	}
	slices.SortFunc(out, func(a, b kube.Resource) int { return strings.Compare(a.String(), b.String()) })
	d.Changed(out)
}

// stoppedError is why src stopped before its first list.
func stoppedError(src Owned) error {
	if err := src.Err(); err != nil {
		return err
	}
	return errors.New("stopped before its first list")
}

// startError is the answer to the requests of a resource that could not
// be started: the API server's own answer (a 403 Forbidden with its
// message) when it gave one, else 503.
func startError(gvr schema.GroupVersionResource, err error) *apierrors.StatusError {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return &apierrors.StatusError{ErrStatus: status.Status()}
	}
	return apierrors.NewServiceUnavailable(fmt.Sprintf("caching %s (kubectl reflect serve): %v", gvr.GroupResource(), err))
}
