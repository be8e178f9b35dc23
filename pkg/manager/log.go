package manager

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/controller"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/output"
)

// reconcileLog writes the live log of a run, one line per reconcile (see
// formatRecord), from a goroutine of its own: Options.OnReconcile must
// never block, and stderr may. When the writer falls behind by
// reconcileLogBuffer lines, lines are dropped and counted in the next one
// written.
type reconcileLog struct {
	w     io.Writer
	lines chan string
	done  chan struct{}

	mu      sync.Mutex
	dropped int
	closed  bool
}

const reconcileLogBuffer = 4096

func newReconcileLog(w io.Writer) *reconcileLog {
	l := &reconcileLog{w: w, lines: make(chan string, reconcileLogBuffer), done: make(chan struct{})}
	go l.write()
	return l
}

func (l *reconcileLog) write() {
	defer close(l.done)
	for line := range l.lines {
		io.WriteString(l.w, line)
	}
}

// record is an Options.OnReconcile.
func (l *reconcileLog) record(r controller.ReconcileRecord) {
	line := formatRecord(r, time.Now())
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	if l.dropped > 0 {
		line = fmt.Sprintf("(%d reconcile lines dropped)\n%s", l.dropped, line)
	}
	select {
	case l.lines <- line:
		l.dropped = 0
	default:
		l.dropped++
	}
}

// close writes what is queued and stops.
func (l *reconcileLog) close() {
	l.mu.Lock()
	if !l.closed {
		l.closed = true
		close(l.lines)
	}
	l.mu.Unlock()
	<-l.done
}

// formatRecord is one line of the log:
//
//	TIME CONTROLLER NAMESPACE/NAME TRIGGER DURATION RESULT
//	11:20:00.123 configmap-generator web/app change:configmaps/web/app 3.2ms ok
//	11:20:01.456 configmap-generator web/bad change:configmapgenerators.kubectl-reflect.io/web/bad 1ms terminal error: invalid spec: ...
//
// TRIGGER is change:RESOURCE/KEY (the object that changed), requeue,
// retry or reconcile-all; RESULT is ok, "ok, requeue in D", "error: ..."
// (retried with backoff) or "terminal error: ..." (not retried).
func formatRecord(r controller.ReconcileRecord, now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s %s %s ", now.Format("15:04:05.000"), r.Controller, r.Request, formatTrigger(r.Trigger), output.ShortDuration(r.Duration))
	switch {
	case r.Err != nil && controller.IsTerminal(r.Err):
		b.WriteString("terminal error: " + oneLine(r.Err.Error()))
	case r.Err != nil:
		b.WriteString("error: " + oneLine(r.Err.Error()))
	case r.Result.RequeueAfter > 0:
		fmt.Fprintf(&b, "ok, requeue in %s", r.Result.RequeueAfter)
	default:
		b.WriteString("ok")
	}
	b.WriteByte('\n')
	return b.String()
}

func formatTrigger(t controller.Trigger) string {
	if t.Kind == controller.TriggerChange && t.Resource != "" {
		return "change:" + t.Resource + "/" + t.Key.String()
	}
	return t.Kind.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
