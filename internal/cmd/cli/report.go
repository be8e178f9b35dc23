package cli

import (
	"fmt"
	"sync"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
)

// Reporter writes warnings, errors and list progress to stderr.
type Reporter struct {
	mu       sync.Mutex
	w        interface{ Write([]byte) (int, error) }
	terminal bool
	last     time.Time
	shown    bool
}

// NewReporter reports on w; terminal shows list progress (a line
// rewritten in place).
func NewReporter(w interface{ Write([]byte) (int, error) }, terminal bool) *Reporter {
	return &Reporter{w: w, terminal: terminal}
}

// Line writes one line, prefix then format, clearing a progress line first.
func (r *Reporter) Line(prefix, format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clearLocked()
	fmt.Fprintf(r.w, prefix+format+"\n", args...)
}

// Errorf and Warnf write a line prefixed "error: " and "warning: ".
func (r *Reporter) Errorf(format string, args ...any) { r.Line("error: ", format, args...) }
func (r *Reporter) Warnf(format string, args ...any)  { r.Line("warning: ", format, args...) }

// progress shows how many objects of a kind were listed so far, on a
// terminal only, at most every 200 ms.
func (r *Reporter) progress(kind string, n int) {
	if !r.terminal {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if now := time.Now(); now.Sub(r.last) >= 200*time.Millisecond {
		r.last = now
		r.shown = true
		fmt.Fprintf(r.w, "\r\033[Klisting %s: %d objects", kind, n)
	}
}

func (r *Reporter) progressDone(string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clearLocked()
}

func (r *Reporter) clearLocked() {
	if r.shown {
		fmt.Fprint(r.w, "\r\033[K")
		r.shown = false
	}
}

// Hooks are the reflector hooks that report on r: relists as warnings,
// list progress on a terminal, and, if retries, every retried error as a
// warning (get retries quietly and says only the error it gives up on).
func (r *Reporter) Hooks(retries bool) reflector.Hooks {
	h := reflector.Hooks{
		OnRelist: func(res kube.Resource, err error) {
			r.Warnf("%s: %v; relisting", res, err)
		},
		OnProgress: func(res kube.Resource, n int) { r.progress(res.String(), n) },
		OnListed:   func(res kube.Resource) { r.progressDone(res.String()) },
	}
	if retries {
		h.OnError = func(_ kube.Resource, err error, retryIn time.Duration) {
			r.Warnf("%v; retrying in %s", err, retryIn.Round(100*time.Millisecond))
		}
	}
	return h
}
