package serve

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync/atomic"
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
		// history (ErrTooOld): read it again, once.
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
		} // else the 410 the store's history gives: the client relists
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

// errWatchTimeout is the cause of a watch's end at its timeoutSeconds.
var errWatchTimeout = errors.New("the watch's timeoutSeconds passed")

// watchStream is one WATCH's loop: it turns the subscription's changes
// into events until the client goes, the timeout ends it, or the
// subscriber falls behind (store.Resync: the client relists).
type watchStream struct {
	h       *Handler
	c       *cached
	f       *filter
	ww      *watchWriter
	sub     *store.Subscription[*object.Object]
	replay  []store.Change[*object.Object] // sent before sub's (feed.replay)
	wake    <-chan struct{}                // the subscription's store.SubscribeOptions.Wake
	initial bool                           // the current state is being sent
	opts    watchOptions
	lastRV  string // of the last change written
	// sentRV is the newest resourceVersion the client was told: the one it
	// resumed from, its changes', its bookmarks'.
	sentRV string
	// lastLive: the last change written was live (it has a resourceVersion
	// of its own, which no other change shares).
	lastLive bool
	// relisted: the last drain wrote changes of a relist (the store's
	// swap, not live, not the initial state).
	relisted bool

	pending   *pendingLag // the arrival of the oldest change written, not yet flushed
	unflushed []time.Time // the arrivals of the live changes written, not yet flushed
}

func (s *watchStream) run(ctx context.Context) {
	s.pending = s.c.lag.open()
	defer s.c.lag.close(s.pending)
	var tick <-chan time.Time
	if s.opts.bookmarks {
		t := time.NewTicker(s.h.opts.BookmarkInterval)
		defer t.Stop()
		tick = t.C
	}
	bookmarkDue, relistDue := false, false
	for {
		// Read the store's resourceVersion before draining: every change
		// up to it is then queued or written, so a bookmark may carry it.
		// The store sets it and queues a relist's changes under one lock,
		// so a read after some of them were drained waits for the rest.
		rv := s.c.Source.ResourceVersion()
		// A Table's times (its Age, ...) are those of when the events are
		// sent, as the API server computes them for each event.
		s.ww.enc.now = s.h.opts.Now()
		if !s.drain() {
			return
		}
		if relistDue { // a relist's changes were drained before rv was read: all are written
			bookmarkDue, relistDue = true, false
		}
		if s.relisted && s.opts.bookmarks {
			// Next round, at a resourceVersion read after its swap. (When
			// the rest of the relist is drained then, one more bookmark
			// follows at the next: a repeated bookmark is harmless.)
			relistDue = true
		}
		again := relistDue
		if bookmarkDue && !s.initial {
			if brv, ok := s.bookmarkRV(rv); ok {
				s.ww.event("BOOKMARK", s.ww.enc.bookmark(brv, false))
				s.sentRV = store.MaxRV(s.sentRV, brv)
				bookmarkDue = false
			} else {
				again = true
			}
		}
		if !s.ww.flush() {
			return
		}
		s.flushed()
		if again {
			continue
		}
		select {
		case <-s.wake:
		case <-tick:
			bookmarkDue = true
		case <-ctx.Done():
			if errors.Is(context.Cause(ctx), errWatchTimeout) {
				s.closingBookmark()
			}
			return
		case <-s.c.gone: // dropped: the client asks again, and hears why
			return
		}
	}
}

// closingBookmark ends a watch whose timeoutSeconds passed as the API
// server ends one, so that its client resumes without a replay of what
// went by unseen (the changes its selector or namespace left out): what is
// queued, then (bookmarks allowed, the initial state sent) a BOOKMARK at
// the resourceVersion of the moment, when it is newer than what the client
// was told. The API server sends its own two seconds before the deadline;
// this one comes at the deadline, as recent as a bookmark can be.
func (s *watchStream) closingBookmark() {
	rv := s.c.Source.ResourceVersion()
	if !s.drain() || !s.opts.bookmarks || s.initial {
		s.ww.flush()
		return
	}
	if brv, ok := s.bookmarkRV(rv); ok && store.CompareRV(brv, s.sentRV) > 0 {
		s.ww.event("BOOKMARK", s.ww.enc.bookmark(brv, false))
	}
	s.ww.flush()
}

// bookmarkRV is the resourceVersion a bookmark may carry after a drain
// that began when the store was at rv: one that every change up to it
// was written before, and no change written after. ok is false while the
// last change written is one of a relist's, whose resourceVersions other
// changes share, and rv is older: some may not be written yet.
func (s *watchStream) bookmarkRV(rv string) (string, bool) {
	switch {
	case store.MaxRV(rv, s.lastRV) == rv:
		return rv, true
	case s.lastLive:
		return s.lastRV, true
	}
	return "", false
}

// drain writes every queued change; false ends the watch.
func (s *watchStream) drain() bool {
	s.relisted = false
	for {
		ch, replayed, ok, err := s.next()
		if err != nil {
			return false
		}
		if !ok {
			return true
		}
		written := s.ww.events
		switch ch.Type {
		case store.Resync:
			return false // fell behind: the client relists
		case store.Synced:
			if s.initial && s.opts.sendInitialEvents != nil {
				s.ww.event("BOOKMARK", s.ww.enc.bookmark(ch.ResourceVersion, true))
			}
			s.initial = false
		case store.Applied:
			s.applied(ch)
		case store.Deleted:
			if s.f.matches(ch.Object) {
				s.ww.objectEvent("DELETED", withResourceVersion(ch.Object, ch.ResourceVersion))
			}
		}
		s.lastRV = store.MaxRV(s.lastRV, ch.ResourceVersion)
		s.sentRV = store.MaxRV(s.sentRV, ch.ResourceVersion)
		s.lastLive = !ch.At.IsZero() || replayed // a replayed change has a resourceVersion of its own too
		if !s.lastLive && !s.initial && (ch.Type == store.Applied || ch.Type == store.Deleted) {
			s.relisted = true
		}
		if s.ww.events > written && !ch.At.IsZero() {
			s.written(ch.At)
		}
		if !s.ww.ok {
			return false
		}
	}
}

// next is the next change to write, replayed from the history or queued in
// the subscription; ok is false when there is none yet.
func (s *watchStream) next() (ch store.Change[*object.Object], replayed, ok bool, err error) {
	if len(s.replay) > 0 {
		ch, s.replay = s.replay[0], s.replay[1:]
		return ch, true, true, nil
	}
	ch, ok, err = s.sub.TryNext()
	return ch, false, ok, err
}

// written notes a live change written to the client, which arrived in the
// store at at: it is delivered at the next flush.
func (s *watchStream) written(at time.Time) {
	if len(s.unflushed) == 0 {
		s.pending.since.Store(at.UnixNano())
	}
	s.unflushed = append(s.unflushed, at)
}

// flushed records the delivery lag of the changes written since the last
// flush, which has just returned.
func (s *watchStream) flushed() {
	if len(s.unflushed) == 0 {
		return
	}
	now := time.Now() // the store's clock (store.Change.At), not Options.Now
	for _, at := range s.unflushed {
		s.c.lag.observe(now.Sub(at), now)
	}
	s.unflushed = s.unflushed[:0]
	s.pending.since.Store(0)
}

// applied writes an Applied change as the API server's watch cache does
// through a selector: an object that starts matching is ADDED, one that
// stops is DELETED (its previous state at this resourceVersion). A change
// replayed from the API server's own watch (store.Change.OldUnknown) is
// MODIFIED: it reaches only watches whose filter reads the key alone
// (store.SubscribeOptions.NeedOld), for which the earlier version matched
// as this one does.
func (s *watchStream) applied(ch store.Change[*object.Object]) {
	now := s.f.matches(ch.Object)
	before := !s.initial && (ch.HasOld && s.f.matches(ch.Old) || ch.OldUnknown && now)
	switch {
	case now && before:
		s.ww.objectEvent("MODIFIED", ch.Object)
	case now:
		s.ww.objectEvent("ADDED", ch.Object)
	case before:
		s.ww.objectEvent("DELETED", withResourceVersion(ch.Old, ch.ResourceVersion))
	}
}

// watchWriter writes watch events, one JSON object a line.
type watchWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	enc     *encoder
	columns bool // the next Table carries its columnDefinitions
	buf     []byte
	ok      bool          // no write failed
	sent    *atomic.Int64 // counts the events written
	events  int           // the events this writer wrote
}

func (ww *watchWriter) start() {
	ww.ok = true
	ww.w.Header().Set("Content-Type", "application/json")
	ww.w.WriteHeader(http.StatusOK)
	ww.flush()
}

func (ww *watchWriter) objectEvent(typ string, o *object.Object) {
	if ww.enc.form == formTable {
		ww.event(typ, ww.enc.appendTable(nil, o.ResourceVersion, ww.columns, o))
		ww.columns = false
		return
	}
	ww.event(typ, ww.enc.appendObject(nil, o))
}

// writeTimeout bounds each write of a watch: a client that stops reading
// has its watch ended rather than holding a goroutine and a connection.
const writeTimeout = time.Minute

func (ww *watchWriter) event(typ string, obj []byte) {
	if !ww.ok {
		return
	}
	if ww.rc != nil {
		_ = ww.rc.SetWriteDeadline(time.Now().Add(writeTimeout)) // not every ResponseWriter can: then none
	}
	ww.buf = append(ww.buf[:0], `{"type":"`...)
	ww.buf = append(ww.buf, typ...)
	ww.buf = append(ww.buf, `","object":`...)
	ww.buf = append(ww.buf, obj...)
	ww.buf = append(ww.buf, "}\n"...)
	if _, err := ww.w.Write(ww.buf); err != nil {
		ww.ok = false
		return
	}
	ww.events++
	if ww.sent != nil {
		ww.sent.Add(1)
	}
}

func (ww *watchWriter) flush() bool {
	if ww.ok && ww.rc.Flush() != nil {
		ww.ok = false
	}
	return ww.ok
}
