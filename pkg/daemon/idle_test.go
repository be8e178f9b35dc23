package daemon

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"
)

// TestIdleExit: idle after the duration with no request; an open request
// (a watch) keeps the daemon busy however long it lasts, and the count
// starts again when it ends.
func TestIdleExit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newIdleExit(time.Minute)
		defer e.Stop()
		release := make(chan struct{})
		h := e.wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }))
		time.Sleep(59 * time.Second)
		go h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
		synctest.Wait()
		time.Sleep(time.Hour) // the request is open all along
		if isClosed(e.Idle()) {
			t.Fatal("idle while a request is open")
		}
		close(release)
		synctest.Wait()
		time.Sleep(59 * time.Second)
		if isClosed(e.Idle()) {
			t.Fatal("idle before a minute without a request")
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if !isClosed(e.Idle()) {
			t.Fatal("not idle after a minute without a request")
		}
	})
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
