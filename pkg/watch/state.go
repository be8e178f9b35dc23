package watch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// State is where a Watcher stands in its protocol.
type State uint8

const (
	// StateEmpty must (re)list: it emits Init and starts a streaming list or
	// the first LIST page.
	StateEmpty State = iota
	// StateListing pages through a LIST (continue token kept).
	StateListing
	// StateStreaming reads the initial events of a streaming list.
	StateStreaming
	// StateWatchPending has a resourceVersion and no open watch.
	StateWatchPending
	// StateWatching reads live events from an open watch.
	StateWatching
)

var stateNames = [...]string{"Empty", "Listing", "Streaming", "WatchPending", "Watching"}

func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

var (
	// errWatchEndedEarly: a streaming list ended before its last initial event.
	errWatchEndedEarly = errors.New("watch ended before the initial list was complete")
	// errWatchClosedAtOnce: a watch ended within a second without an event,
	// as a misbehaving proxy's do; retrying at once would spin.
	errWatchClosedAtOnce = errors.New("watch closed at once without events")
)

// minWatchLifetime is how long a watch without events must have lasted for
// its clean end to be resumed without a backoff.
const minWatchLifetime = time.Second

// machine is the state of one Run. Every transition happens in step.
type machine[T any] struct {
	w         *Watcher[T]
	emit      Handler[T]
	state     State
	rv        string // last resourceVersion seen (valid from InitDone on)
	cont      string // continue token while Listing
	stream    Stream[T]
	streaming bool // try streaming lists; false once the server refused one
	unpaged   bool // list in one request: a continue token expired mid-list
	opened    time.Time
	received  int  // events read from the open watch
	resuming  bool // a watch of this list ended: the next one is a restart
	seedAsked bool // the Seeder was asked (it is asked once)
}

// step makes one transition. progressed is true when the server answered
// with data (a page or an event), which resets the backoff.
func (m *machine[T]) step(ctx context.Context) (progressed bool, err error) {
	switch m.state {
	case StateEmpty:
		return m.startList(ctx)
	case StateListing:
		return m.listPage(ctx)
	case StateStreaming:
		return m.readInitialEvent(ctx)
	case StateWatchPending:
		return m.openWatch(ctx)
	case StateWatching:
		return m.readEvent(ctx)
	}
	return false, fmt.Errorf("watcher in unknown state %v", m.state)
}

func (m *machine[T]) send(ctx context.Context, ev Event[T]) error {
	if err := m.emit(ctx, ev); err != nil {
		return handlerError{err}
	}
	return nil
}

func (m *machine[T]) closeStream() {
	if m.stream != nil {
		m.stream.Close()
		m.stream = nil
	}
}

// relist drops the open watch and goes back to StateEmpty.
func (m *machine[T]) relist() {
	m.closeStream()
	m.state, m.cont, m.resuming = StateEmpty, "", false
}

// expired relists after the server said 410 Gone.
func (m *machine[T]) expired(err error) {
	m.w.opts.OnRelist(err)
	m.relist()
}

func (m *machine[T]) startList(ctx context.Context) (bool, error) {
	if seeded, err := m.seeded(ctx); seeded || err != nil {
		return seeded, err
	}
	if err := m.send(ctx, Event[T]{Type: Init}); err != nil {
		return false, err
	}
	if !m.streaming {
		m.state, m.cont = StateListing, ""
		return false, nil
	}
	timeout := m.w.watchTimeout()
	s, err := m.watch(ctx, WatchRequest{
		SendInitialEvents:   true,
		AllowWatchBookmarks: true,
		TimeoutSeconds:      timeout,
	})
	if err != nil {
		if streamingListUnsupported(err) {
			m.streaming = false
			m.state, m.cont = StateListing, ""
			return false, nil
		}
		return false, err
	}
	m.stream, m.state = m.guard(s, timeout), StateStreaming
	return false, nil
}

func (m *machine[T]) listPage(ctx context.Context) (bool, error) {
	limit := m.w.opts.PageSize
	if m.unpaged || m.w.opts.List == ListWhole {
		limit = 0
	}
	page, err := m.list(ctx, ListRequest{Limit: limit, Continue: m.cont})
	if err != nil {
		if isGone(err) { // the continue token expired: start over, in one request
			m.expired(err)
			m.unpaged = true
			return false, nil
		}
		return false, err
	}
	for _, obj := range page.Items {
		if err := m.send(ctx, Event[T]{Type: InitApply, Object: obj}); err != nil {
			return true, err
		}
	}
	if page.Continue != "" {
		m.cont = page.Continue
		return true, nil
	}
	m.rv, m.cont, m.state, m.unpaged = page.ResourceVersion, "", StateWatchPending, false
	return true, m.send(ctx, Event[T]{Type: InitDone, ResourceVersion: m.rv})
}

func (m *machine[T]) readInitialEvent(ctx context.Context) (bool, error) {
	ev, err := m.stream.Next()
	if err != nil {
		m.relist()
		switch {
		case isSilence(err): // taken as dead: list again at once
			return false, nil
		case errors.Is(err, io.EOF):
			err = errWatchEndedEarly
		}
		return false, err
	}
	switch ev.Type {
	case WatchAdded, WatchModified:
		return true, m.send(ctx, Event[T]{Type: InitApply, Object: ev.Object, ResourceVersion: ev.ResourceVersion})
	case WatchBookmark:
		if !ev.InitialEventsEnd {
			return true, nil
		}
		m.rv, m.state = ev.ResourceVersion, StateWatching
		return true, m.send(ctx, Event[T]{Type: InitDone, ResourceVersion: m.rv})
	case WatchError:
		if isGone(ev.Err) {
			m.expired(ev.Err)
			return false, nil
		}
		m.relist()
		return false, ev.Err
	default: // a deletion cannot precede the end of the initial events
		m.relist()
		return false, fmt.Errorf("unexpected %v event during a streaming list", ev.Type)
	}
}

func (m *machine[T]) openWatch(ctx context.Context) (bool, error) {
	timeout := m.w.watchTimeout()
	s, err := m.watch(ctx, WatchRequest{
		ResourceVersion:     m.rv,
		AllowWatchBookmarks: true,
		TimeoutSeconds:      timeout,
	})
	if err != nil {
		if isGone(err) {
			m.expired(err)
			return false, nil
		}
		return false, err
	}
	m.stream, m.state = m.guard(s, timeout), StateWatching
	m.opened, m.received = m.w.opts.Clock.Now(), 0
	if m.resuming {
		m.resuming = false
		m.w.opts.OnWatchRestart()
	}
	return false, nil
}

func (m *machine[T]) readEvent(ctx context.Context) (bool, error) {
	ev, err := m.stream.Next()
	if err != nil {
		m.closeStream()
		m.state, m.resuming = StateWatchPending, true
		if isSilence(err) { // taken as dead: resume at once, as after the server's end
			return false, nil
		}
		if !errors.Is(err, io.EOF) {
			return false, err
		}
		if m.received == 0 && m.w.opts.Clock.Since(m.opened) < minWatchLifetime {
			return false, errWatchClosedAtOnce
		}
		return false, nil // the server's timeout: resume at once
	}
	m.received++
	switch ev.Type {
	case WatchAdded, WatchModified:
		m.rv = ev.ResourceVersion
		return true, m.send(ctx, Event[T]{Type: Apply, Object: ev.Object, ResourceVersion: m.rv})
	case WatchDeleted:
		m.rv = ev.ResourceVersion
		return true, m.send(ctx, Event[T]{Type: Delete, Object: ev.Object, ResourceVersion: m.rv})
	case WatchBookmark:
		m.rv = ev.ResourceVersion
		return true, m.send(ctx, Event[T]{Type: Bookmark, ResourceVersion: m.rv})
	case WatchError:
		if isGone(ev.Err) {
			m.expired(ev.Err)
			return false, nil
		}
		m.closeStream()
		m.state, m.resuming = StateWatchPending, true
		return false, ev.Err
	}
	return false, fmt.Errorf("unknown watch event type %d", ev.Type)
}
