package serve

import (
	"context"
	"errors"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

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
		tock, ok := s.wait(ctx, tick)
		if !ok {
			return
		}
		bookmarkDue = bookmarkDue || tock
	}
}

// wait waits for the next round of run: a change queued (tock false), the
// bookmark ticker (tock true). ok is false when the watch ends: its
// client went, its timeout passed (then after its closing bookmark), or
// its resource was dropped (the client asks again, and hears why).
func (s *watchStream) wait(ctx context.Context, tick <-chan time.Time) (tock, ok bool) {
	select {
	case <-s.wake:
		return false, true
	case <-tick:
		return true, true
	case <-ctx.Done():
		if errors.Is(context.Cause(ctx), errWatchTimeout) {
			s.closingBookmark()
		}
		return false, false
	case <-s.c.gone:
		return false, false
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
