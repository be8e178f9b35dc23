package daemon

import (
	"net/http"
	"sync"
	"time"
)

// idleExit tells when the daemon has had no request for its duration: no
// request open (a watch is open as long as it lasts) and none ended since.
type idleExit struct {
	mu     sync.Mutex
	after  time.Duration
	active int
	timer  *time.Timer
	idle   chan struct{}
	once   sync.Once
}

// newIdleExit starts counting; a zero duration never tells.
func newIdleExit(after time.Duration) *idleExit {
	e := &idleExit{after: after, idle: make(chan struct{})}
	if after > 0 {
		e.timer = time.AfterFunc(after, e.fire)
	}
	return e
}

func (e *idleExit) fire() { e.once.Do(func() { close(e.idle) }) }

// Idle is closed once the daemon has been idle for the duration.
func (e *idleExit) Idle() <-chan struct{} { return e.idle }

// Stop stops counting.
func (e *idleExit) Stop() {
	if e.timer != nil {
		e.timer.Stop()
	}
}

// wrap counts h's requests.
func (e *idleExit) wrap(h http.Handler) http.Handler {
	if e.timer == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.active++
		e.timer.Stop()
		e.mu.Unlock()
		defer func() {
			e.mu.Lock()
			if e.active--; e.active == 0 {
				e.timer.Reset(e.after)
			}
			e.mu.Unlock()
		}()
		h.ServeHTTP(w, r)
	})
}
