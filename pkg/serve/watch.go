package serve

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// watchOptions are a WATCH's parameters.
type watchOptions struct {
	rv, match         string
	sendInitialEvents *bool
	bookmarks         bool
	timeout           time.Duration
}

func parseWatchOptions(r *http.Request) (watchOptions, *apierrors.StatusError) {
	q := r.URL.Query()
	o := watchOptions{rv: q.Get("resourceVersion"), match: q.Get("resourceVersionMatch"), bookmarks: isTrue(q.Get("allowWatchBookmarks"))}
	if q.Has("sendInitialEvents") {
		v := isTrue(q.Get("sendInitialEvents"))
		o.sendInitialEvents = &v
	}
	if s := q.Get("timeoutSeconds"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return o, badRequest("invalid timeoutSeconds %q", s)
		}
		o.timeout = time.Duration(n) * time.Second
	}
	var errs field.ErrorList
	path := field.NewPath("")
	switch {
	case o.sendInitialEvents != nil && o.match != string(metav1.ResourceVersionMatchNotOlderThan):
		errs = append(errs, field.Forbidden(path.Child("resourceVersionMatch"), "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"))
	case o.sendInitialEvents != nil && *o.sendInitialEvents && !o.bookmarks:
		errs = append(errs, field.Forbidden(path.Child("allowWatchBookmarks"), "sendInitialEvents requires setting allowWatchBookmarks to true"))
	case o.sendInitialEvents == nil && o.match != "":
		errs = append(errs, field.Forbidden(path.Child("resourceVersionMatch"), "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"))
	}
	if len(errs) > 0 {
		return o, apierrors.NewInvalid(metav1.SchemeGroupVersion.WithKind("ListOptions").GroupKind(), "", errs)
	}
	return o, nil
}

// watch answers a WATCH: see the package's doc for what it starts with.
func (h *Handler) watch(w http.ResponseWriter, r *http.Request, c *cached, req request) {
	q := r.URL.Query()
	opts, serr := parseWatchOptions(r)
	if serr != nil {
		writeStatus(w, r, serr)
		return
	}
	fieldSel := q.Get("fieldSelector")
	if req.name != "" { // the legacy watch of one object
		fieldSel = kube.NameFieldSelector(req.name, fieldSel)
	}
	include, f, ok := readSelection(w, r, c, req.namespace, fieldSel)
	if !ok {
		return
	}
	ctx := r.Context()
	if opts.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, opts.timeout, errWatchTimeout)
		defer cancel()
	}
	ww := &watchWriter{w: w, rc: http.NewResponseController(w), enc: newEncoder(c, formOf(r), include, h.opts.Now()), columns: true, sent: &c.counters.sent}
	wake := make(chan struct{}, 1)
	// The request's context, not the timeout's: at the timeout, what is
	// queued is still drained before the closing bookmark.
	fd, serr := h.subscribe(r.Context(), c, f, opts, wake)
	if serr != nil {
		if serr.ErrStatus.Code == http.StatusBadRequest {
			writeStatus(w, r, serr)
			return
		}
		ww.start()
		ww.event("ERROR", mustJSON(statusOf(serr))) // as the API server: 200, then an ERROR event
		ww.flush()
		return
	}
	defer fd.sub.Close()
	c.counters.watchers.Add(1)
	defer c.counters.watchers.Add(-1)
	ww.start()
	s := &watchStream{h: h, c: c, f: f, ww: ww, sub: fd.sub, replay: fd.replay, wake: wake, initial: fd.initial, opts: opts}
	if !fd.initial {
		s.sentRV = opts.rv
	}
	s.run(ctx)
}

// feed is what a WATCH sends: the changes replayed from the daemon's
// history (History.Changes), if any, then its subscription's.
type feed struct {
	sub    *store.Subscription[*object.Object]
	replay []store.Change[*object.Object]
	// initial: the subscription starts with the current state (Applied
	// changes up to Synced).
	initial bool
}

// subscribe starts the subscription a WATCH reads.
func (h *Handler) subscribe(ctx context.Context, c *cached, f *filter, opts watchOptions, wake chan struct{}) (*feed, *apierrors.StatusError) {
	sopts := store.SubscribeOptions{Mode: store.Ordered, Wake: wake, Keep: func(k store.Key) bool { return f.keepsKey(k.Namespace, k.Name) }}
	if opts.rv != "" && opts.rv != "0" && opts.sendInitialEvents != nil {
		want, ok := store.ParseRV(opts.rv)
		if !ok {
			return nil, badRequest("invalid resource version %q", opts.rv)
		}
		if serr := waitFor(ctx, c.Source, want, h.opts.FreshWait); serr != nil {
			return nil, serr
		}
	}
	switch {
	case opts.sendInitialEvents != nil && !*opts.sendInitialEvents:
		// Not older than rv, without the state: from now on. A relist
		// between reading the resourceVersion and subscribing empties the
		// window (ErrTooOld): read it again, once.
		sub, err := c.Source.SubscribeFrom(ctx, c.Source.ResourceVersion(), sopts)
		if errors.Is(err, store.ErrTooOld) {
			sub, err = c.Source.SubscribeFrom(ctx, c.Source.ResourceVersion(), sopts)
		}
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		return &feed{sub: sub}, nil
	case opts.sendInitialEvents != nil || opts.rv == "" || opts.rv == "0":
		return &feed{sub: c.Source.Subscribe(ctx, sopts), initial: true}, nil
	}
	sopts.NeedOld = f.byContent()
	sub, err := c.Source.SubscribeFrom(ctx, opts.rv, sopts)
	if errors.Is(err, store.ErrTooOld) {
		backfill(ctx, c, opts.rv)
		sub, err = c.Source.SubscribeFrom(ctx, opts.rv, sopts)
	}
	if errors.Is(err, store.ErrTooOld) && h.opts.History != nil {
		if fd, herr := h.replay(ctx, c, opts.rv, sopts); herr == nil {
			return fd, nil
		} // else the 410 the store's window gives: the client relists
	}
	if errors.Is(err, store.ErrTooLarge) {
		want, _ := store.ParseRV(opts.rv)
		if serr := waitFor(ctx, c.Source, want, h.opts.FreshWait); serr != nil {
			return nil, serr
		}
		sub, err = c.Source.SubscribeFrom(ctx, opts.rv, sopts)
	}
	switch {
	case err == nil:
		return &feed{sub: sub}, nil
	case errors.Is(err, store.ErrInvalidResourceVersion):
		return nil, badRequest("invalid resource version %q", opts.rv)
	case errors.Is(err, store.ErrTooOld):
		return nil, tooOld(opts.rv, err)
	case errors.Is(err, store.ErrTooLarge):
		return nil, tooLarge(opts.rv, c.Source.ResourceVersion())
	}
	return nil, apierrors.NewInternalError(err)
}

// replay is the feed of a WATCH from rv, older than what the store and the
// API server hold, from the daemon's history: its changes after rv up to
// the oldest resourceVersion the store answers, then the store's from
// there, so that a client that outlived the daemon's restart resumes
// without a relist. An error when the history does not hold them all.
func (h *Handler) replay(ctx context.Context, c *cached, rv string, sopts store.SubscribeOptions) (*feed, error) {
	oldest := c.Source.OldestResourceVersion()
	if oldest == "" {
		return nil, store.ErrTooOld
	}
	changes, err := h.opts.History.Changes(ctx, c.res, rv, oldest, sopts.NeedOld)
	if err != nil {
		return nil, err
	}
	sub, err := c.Source.SubscribeFrom(ctx, oldest, sopts) // ErrTooOld if a relist moved it since
	if err != nil {
		return nil, err
	}
	kept := changes[:0]
	for _, ch := range changes {
		if sopts.Keep(ch.Key) {
			kept = append(kept, ch)
		}
	}
	return &feed{sub: sub, replay: kept}, nil
}
