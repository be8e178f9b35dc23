package watch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/clock"
	testingclock "k8s.io/utils/clock/testing"
)

// obj is the object type the tests watch.
type obj struct{ Name, RV string }

// callKind names the two requests a Client serves.
type callKind string

const (
	listCall  callKind = "LIST"
	watchCall callKind = "WATCH"
)

// call is one request the watcher made, with all its options.
type call struct {
	Kind  callKind
	List  ListRequest
	Watch WatchRequest
}

// String shows every option but TimeoutSeconds, which is random; the harness
// checks its range instead (see checkWatchTimeouts).
func (c call) String() string {
	if c.Kind == listCall {
		return fmt.Sprintf("LIST rv=%q limit=%d continue=%q", c.List.ResourceVersion, c.List.Limit, c.List.Continue)
	}
	s := fmt.Sprintf("WATCH rv=%q", c.Watch.ResourceVersion)
	if c.Watch.SendInitialEvents {
		s += " sendInitialEvents"
	}
	if c.Watch.AllowWatchBookmarks {
		s += " bookmarks"
	}
	return s
}

// The calls a watcher with default options is expected to make.
func pageCall(cont string) string {
	return call{Kind: listCall, List: ListRequest{Limit: 500, Continue: cont}}.String()
}

func streamingListCall() string {
	return call{Kind: watchCall, Watch: WatchRequest{SendInitialEvents: true, AllowWatchBookmarks: true}}.String()
}

func watchCallFrom(rv string) string {
	return call{Kind: watchCall, Watch: WatchRequest{ResourceVersion: rv, AllowWatchBookmarks: true}}.String()
}

// end is how a scripted stream ends once its events are read.
type end struct{ err error } // err == nil: block until Close or ctx done

var (
	eof   = end{io.EOF}
	block = end{}
)

func breaks(err error) end { return end{err} }

// reply is one step of a script: the call the watcher must make next and the
// server's answer to it.
type reply struct {
	kind   callKind
	page   Page[obj]
	err    error
	events []WatchEvent[obj]
	end    end
	hangs  bool // no answer: the call returns the context's error when it ends
}

// listOK answers a LIST with one page of objects (each at the page's RV).
func listOK(rv, cont string, names ...string) reply {
	p := Page[obj]{ResourceVersion: rv, Continue: cont}
	for _, n := range names {
		p.Items = append(p.Items, obj{Name: n, RV: rv})
	}
	return reply{kind: listCall, page: p}
}

func listFails(err error) reply { return reply{kind: listCall, err: err} }

// listHangs is a LIST the server never answers.
func listHangs() reply { return reply{kind: listCall, hangs: true} }

// watchHangs is a WATCH the server never answers.
func watchHangs() reply { return reply{kind: watchCall, hangs: true} }

// watchOK answers a WATCH with a stream of events followed by e.
func watchOK(e end, events ...WatchEvent[obj]) reply {
	return reply{kind: watchCall, events: events, end: e}
}

func watchFails(err error) reply { return reply{kind: watchCall, err: err} }

// Watch events as a Client decodes them.
func added(name, rv string) WatchEvent[obj] {
	return WatchEvent[obj]{Type: WatchAdded, Object: obj{name, rv}, ResourceVersion: rv}
}

func modified(name, rv string) WatchEvent[obj] {
	return WatchEvent[obj]{Type: WatchModified, Object: obj{name, rv}, ResourceVersion: rv}
}

func deleted(name, rv string) WatchEvent[obj] {
	return WatchEvent[obj]{Type: WatchDeleted, Object: obj{name, rv}, ResourceVersion: rv}
}

func bookmark(rv string) WatchEvent[obj] {
	return WatchEvent[obj]{Type: WatchBookmark, ResourceVersion: rv}
}

func initialEventsEnd(rv string) WatchEvent[obj] {
	return WatchEvent[obj]{Type: WatchBookmark, ResourceVersion: rv, InitialEventsEnd: true}
}

func errorEvent(err error) WatchEvent[obj] { return WatchEvent[obj]{Type: WatchError, Err: err} }

// errScriptDone is returned by a call past the end of the script when the
// call's context is not the one the client cancels.
var errScriptDone = errors.New("scripted client: script exhausted")

// scriptedClient is a Client[obj] that answers from a script and records the
// options of every call. A call past the end of the script is recorded too,
// then the client cancels the test's context so that Run returns; a call of
// the wrong kind fails the test and does the same.
type scriptedClient struct {
	t      testing.TB
	cancel context.CancelFunc

	mu        sync.Mutex
	script    []reply
	calls     []call
	streams   []*scriptedStream
	exhausted bool
}

var _ Client[obj] = (*scriptedClient)(nil)

func newScriptedClient(t testing.TB, cancel context.CancelFunc, script ...reply) *scriptedClient {
	return &scriptedClient{t: t, cancel: cancel, script: script}
}

func (c *scriptedClient) next(got call) (reply, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, got)
	if len(c.script) == 0 {
		c.exhausted = true
		c.cancel()
		return reply{}, false
	}
	r := c.script[0]
	c.script = c.script[1:]
	if r.kind != got.Kind {
		c.t.Errorf("call %d: the watcher made %v; the script expected a %s", len(c.calls), got, r.kind)
		c.cancel()
		return reply{}, false
	}
	return r, true
}

func stopped(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return errScriptDone
}

// List implements Client.
func (c *scriptedClient) List(ctx context.Context, opts ListRequest) (Page[obj], error) {
	r, ok := c.next(call{Kind: listCall, List: opts})
	if !ok {
		return Page[obj]{}, stopped(ctx)
	}
	if r.hangs {
		<-ctx.Done()
		return Page[obj]{}, ctx.Err()
	}
	return r.page, r.err
}

// Watch implements Client.
func (c *scriptedClient) Watch(ctx context.Context, opts WatchRequest) (Stream[obj], error) {
	r, ok := c.next(call{Kind: watchCall, Watch: opts})
	if !ok {
		return nil, stopped(ctx)
	}
	if r.hangs {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if r.err != nil {
		return nil, r.err
	}
	return c.newStream(ctx, r.events, r.end), nil
}

// newStream opens a stream outside the script (for tests that start the
// machine in a state with an open watch).
func (c *scriptedClient) newStream(ctx context.Context, events []WatchEvent[obj], e end) *scriptedStream {
	s := &scriptedStream{ctx: ctx, events: events, end: e, closed: make(chan struct{}), blocked: make(chan struct{})}
	c.mu.Lock()
	c.streams = append(c.streams, s)
	c.mu.Unlock()
	return s
}

// recorded returns the calls made so far, as strings.
func (c *scriptedClient) recorded() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, len(c.calls))
	for i, cl := range c.calls {
		out[i] = cl.String()
	}
	return out
}

func (c *scriptedClient) rawCalls() []call {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]call(nil), c.calls...)
}

// unused is the number of script steps the watcher never asked for.
func (c *scriptedClient) unused() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.script)
}

func (c *scriptedClient) ranOut() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.exhausted
}

// openStreams counts the streams nobody closed.
func (c *scriptedClient) openStreams() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, s := range c.streams {
		if !s.isClosed() {
			n++
		}
	}
	return n
}

// blockedStream reports whether some stream is blocked in Next.
func (c *scriptedClient) blockedStream() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.streams {
		select {
		case <-s.blocked:
			return true
		default:
		}
	}
	return false
}

// errStreamClosed is what Next returns after Close.
var errStreamClosed = errors.New("scripted stream: closed")

// scriptedStream hands out its events, then ends as scripted. It starts no
// goroutine: a blocked Next waits for Close or for the context of the Watch.
type scriptedStream struct {
	ctx context.Context

	mu     sync.Mutex
	events []WatchEvent[obj]
	end    end

	closed    chan struct{}
	closeOnce sync.Once
	blocked   chan struct{} // closed when Next first blocks
	blockOnce sync.Once
}

var _ Stream[obj] = (*scriptedStream)(nil)

// Next implements Stream.
func (s *scriptedStream) Next() (WatchEvent[obj], error) {
	if s.isClosed() {
		return WatchEvent[obj]{}, errStreamClosed
	}
	s.mu.Lock()
	if len(s.events) > 0 {
		ev := s.events[0]
		s.events = s.events[1:]
		s.mu.Unlock()
		return ev, nil
	}
	s.mu.Unlock()
	if s.end.err != nil {
		return WatchEvent[obj]{}, s.end.err
	}
	s.blockOnce.Do(func() { close(s.blocked) })
	select {
	case <-s.closed:
		return WatchEvent[obj]{}, errStreamClosed
	case <-s.ctx.Done():
		return WatchEvent[obj]{}, s.ctx.Err()
	}
}

// Close implements Stream.
func (s *scriptedStream) Close() { s.closeOnce.Do(func() { close(s.closed) }) }

func (s *scriptedStream) isClosed() bool {
	select {
	case <-s.closed:
		return true
	default:
		return false
	}
}

// stepClock is a FakeClock whose timers fire as soon as they are made. It
// records every delay the watcher sleeps, so backoff is asserted exactly
// without waiting for it.
type stepClock struct {
	*testingclock.FakeClock
	mu     sync.Mutex
	delays []time.Duration
}

func newStepClock() *stepClock {
	return &stepClock{FakeClock: testingclock.NewFakeClock(time.Unix(0, 0))}
}

func (c *stepClock) record(d time.Duration) {
	c.mu.Lock()
	c.delays = append(c.delays, d)
	c.mu.Unlock()
}

// NewTimer implements clock.Clock.
func (c *stepClock) NewTimer(d time.Duration) clock.Timer {
	t := c.FakeClock.NewTimer(d)
	c.record(d)
	c.FakeClock.Step(d)
	return t
}

// After implements clock.Clock.
func (c *stepClock) After(d time.Duration) <-chan time.Time {
	ch := c.FakeClock.After(d)
	c.record(d)
	c.FakeClock.Step(d)
	return ch
}

func (c *stepClock) slept() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.delays...)
}

// describe names an error by its API status (reason and code) when it has
// one, by its message otherwise.
func describe(err error) string {
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		s := st.Status()
		return fmt.Sprintf("%s(%d)", s.Reason, s.Code)
	}
	return err.Error()
}

// show is an Event in one line: "Init" ("Init of 2" with a size),
// "InitApply a@5", "InitDone 10".
func show(ev Event[obj]) string {
	switch {
	case ev.Type == Init && ev.Size > 0:
		return fmt.Sprintf("Init of %d", ev.Size)
	}
	switch ev.Type {
	case Init:
		return "Init"
	case InitDone, Bookmark:
		return fmt.Sprintf("%v %s", ev.Type, ev.ResourceVersion)
	}
	s := fmt.Sprintf("%v %s", ev.Type, ev.Object.Name)
	if ev.ResourceVersion != "" {
		s += "@" + ev.ResourceVersion
	}
	return s
}

// TestScriptedClient pins the test double itself: it answers in order,
// records options, cancels when the script runs out, and its streams honour
// Close and the watch's context.
func TestScriptedClient(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		c := newScriptedClient(t, cancel,
			listOK("10", "c1", "a"),
			watchOK(block, added("b", "11")),
			watchOK(eof),
		)

		page, err := c.List(ctx, ListRequest{Limit: 5, Continue: "x"})
		if err != nil || page.Continue != "c1" || len(page.Items) != 1 {
			t.Fatalf("List = %+v, %v", page, err)
		}
		s, err := c.Watch(ctx, WatchRequest{ResourceVersion: "10", AllowWatchBookmarks: true, TimeoutSeconds: 7})
		if err != nil {
			t.Fatal(err)
		}
		if ev, err := s.Next(); err != nil || ev.Object.Name != "b" {
			t.Fatalf("Next = %+v, %v", ev, err)
		}
		done := make(chan error, 1)
		go func() { _, err := s.Next(); done <- err }()
		synctest.Wait() // Next blocks
		if !c.blockedStream() {
			t.Fatal("Next is blocked elsewhere than in the stream")
		}
		s.Close()
		if err := <-done; !errors.Is(err, errStreamClosed) {
			t.Fatalf("blocked Next after Close = %v, want errStreamClosed", err)
		}
		if _, err := s.Next(); !errors.Is(err, errStreamClosed) {
			t.Fatalf("Next after Close = %v, want errStreamClosed", err)
		}

		s2, _ := c.Watch(ctx, WatchRequest{})
		for range 2 {
			if _, err := s2.Next(); !errors.Is(err, io.EOF) {
				t.Fatalf("Next at the end = %v, want io.EOF", err)
			}
		}
		if c.openStreams() != 1 {
			t.Fatalf("openStreams = %d, want 1", c.openStreams())
		}
		s2.Close()

		if _, err := c.List(ctx, ListRequest{}); !errors.Is(err, context.Canceled) || !c.ranOut() || ctx.Err() == nil {
			t.Fatalf("List past the script = %v (ranOut %v, ctx %v)", err, c.ranOut(), ctx.Err())
		}
		want := []call{
			{Kind: listCall, List: ListRequest{Limit: 5, Continue: "x"}},
			{Kind: watchCall, Watch: WatchRequest{ResourceVersion: "10", AllowWatchBookmarks: true, TimeoutSeconds: 7}},
			{Kind: watchCall},
			{Kind: listCall},
		}
		if got := c.rawCalls(); !reflect.DeepEqual(got, want) {
			t.Fatalf("calls = %+v\nwant %+v", got, want)
		}

		// A blocked Next also returns when the watch's context ends.
		ctx2, cancel2 := context.WithCancel(t.Context())
		s3 := c.newStream(ctx2, nil, block)
		go func() { _, err := s3.Next(); done <- err }()
		cancel2()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("blocked Next after cancel = %v, want context.Canceled", err)
		}
		s3.Close()
	})
}
