package watch

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

// TestRequestTimeout: Options.RequestTimeout cuts a LIST or the opening of a
// watch that the server does not answer in time, and the watcher retries;
// it never cuts a watch that is open. Time is synctest's.
func TestRequestTimeout(t *testing.T) {
	const d = 2 * time.Second
	paged := Options{List: ListPaged, RequestTimeout: d}
	t.Run("a LIST without an answer", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			var cut time.Duration
			r := runScript(t, paged, func(_ context.Context, ev Event[obj]) error {
				if ev.Type == InitApply && cut == 0 {
					cut = time.Since(start)
				}
				return nil
			}, listHangs(), listOK("10", "", "a"), watchOK(eof))
			diff(t, "calls", r.client.recorded(), []string{pageCall(""), pageCall(""), watchCallFrom("10"), watchCallFrom("10")})
			diff(t, "retries", r.retries, []string{"context deadline exceeded after 800ms", "watch closed at once without events after 800ms"})
			if cut != d {
				t.Errorf("the hanging LIST was cut after %v, want %v", cut, d)
			}
		})
	})
	t.Run("a WATCH without an answer", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			r := runScript(t, paged, nil, listOK("10", ""), watchHangs(), watchOK(eof, added("a", "11")))
			diff(t, "calls", r.client.recorded(), []string{pageCall(""), watchCallFrom("10"), watchCallFrom("10"), watchCallFrom("11")})
			diff(t, "events", r.events, []string{"Init", "InitDone 10", "Apply a@11"})
			if len(r.retries) != 1 || r.retries[0] != "context canceled (no answer within 2s) after 800ms" {
				t.Errorf("retries = %q, want one for the WATCH that had no answer within 2s", r.retries)
			}
		})
	})
	t.Run("GiveUpOnTimeout: a LIST without an answer ends Run", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			opts := paged
			opts.Retry = RetryPolicy{MaxFailures: 3, GiveUpOnTimeout: true}
			r := runScript(t, opts, nil, listHangs())
			if !IsTerminal(r.err) || !errors.Is(r.err, context.DeadlineExceeded) {
				t.Errorf("Run = %v, want a terminal context.DeadlineExceeded", r.err)
			}
			diff(t, "retries", r.retries, nil)
		})
	})
	t.Run("GiveUpOnTimeout: a WATCH without an answer ends Run", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			opts := Options{RequestTimeout: d, Retry: RetryPolicy{GiveUpOnTimeout: true}}
			r := runScript(t, opts, nil, watchHangs())
			if !IsTerminal(r.err) || !errors.Is(r.err, context.DeadlineExceeded) || r.err.Error() != "context canceled (no answer within 2s)" {
				t.Errorf("Run = %v, want a terminal timeout", r.err)
			}
		})
	})
	t.Run("a streaming list without an answer", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			r := runScript(t, Options{RequestTimeout: d}, nil, watchHangs(), watchOK(eof, initialEventsEnd("10")))
			diff(t, "calls", r.client.recorded(), []string{streamingListCall(), streamingListCall(), watchCallFrom("10")})
			diff(t, "events", r.events, []string{"Init", "Init", "InitDone 10"})
		})
	})
	t.Run("an open watch lives past it", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			c := newScriptedClient(t, cancel, listOK("10", ""), watchOK(block))
			var retries int
			w := New[obj](c, Options{List: ListPaged, RequestTimeout: d, OnError: func(error, time.Duration) { retries++ }})
			done := make(chan error, 1)
			go func() { done <- w.Run(ctx, func(context.Context, Event[obj]) error { return nil }) }()
			time.Sleep(10 * d)
			synctest.Wait()
			if !c.blockedStream() || c.openStreams() != 1 || retries != 0 || len(c.recorded()) != 2 {
				t.Errorf("after 10 request timeouts: blocked %v, open streams %d, retries %d, calls %q; want the watch still open",
					c.blockedStream(), c.openStreams(), retries, c.recorded())
			}
			cancel()
			if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("Run = %v", err)
			}
			if c.openStreams() != 0 {
				t.Errorf("stream left open")
			}
		})
	})
}
