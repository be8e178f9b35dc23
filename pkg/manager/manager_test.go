package manager

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/builtin"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/controller"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

func TestFormatRecord(t *testing.T) {
	at := time.Date(2026, 11, 30, 11, 20, 0, 123e6, time.UTC)
	req := store.Key{Namespace: "web", Name: "app"}
	change := controller.Trigger{Kind: controller.TriggerChange, Resource: "configmaps", Key: store.Key{Namespace: "web", Name: "app-1"}}
	for _, tc := range []struct {
		name string
		rec  controller.ReconcileRecord
		want string
	}{
		{"ok", controller.ReconcileRecord{Controller: "cmg", Request: req, Trigger: change, Duration: 3210 * time.Microsecond},
			"11:20:00.123 cmg web/app change:configmaps/web/app-1 3.21ms ok\n"},
		{"requeue", controller.ReconcileRecord{Controller: "cmg", Request: req, Trigger: controller.Trigger{Kind: controller.TriggerRequeue}, Duration: 12345 * time.Microsecond, Result: controller.Result{RequeueAfter: 30 * time.Second}},
			"11:20:00.123 cmg web/app requeue 12ms ok, requeue in 30s\n"},
		{"error", controller.ReconcileRecord{Controller: "cmg", Request: req, Trigger: controller.Trigger{Kind: controller.TriggerRetry}, Duration: 1500 * time.Millisecond, Err: errors.New("boom\n  twice")},
			"11:20:00.123 cmg web/app retry 1.5s error: boom twice\n"},
		{"terminal", controller.ReconcileRecord{Controller: "cmg", Request: store.Key{Name: "cluster"}, Trigger: controller.Trigger{Kind: controller.TriggerAll}, Duration: 800 * time.Nanosecond, Err: controller.Terminal(errors.New("invalid spec"))},
			"11:20:00.123 cmg cluster reconcile-all 1µs terminal error: invalid spec\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := formatRecord(tc.rec, at); got != tc.want {
				t.Errorf("formatRecord =\n%q, want\n%q", got, tc.want)
			}
		})
	}
}

func TestLeaseName(t *testing.T) {
	specs := []builtin.Spec{{Name: "mirror"}, {Name: "configmap-generator"}}
	if got := LeaseName(specs); got != "kubectl-reflect-configmap-generator-mirror" {
		t.Errorf("LeaseName = %q", got)
	}
}

// TestHandleSignals: SIGHUP reconciles everything again, the first SIGINT
// or SIGTERM stops gracefully, the second forces.
func TestHandleSignals(t *testing.T) {
	for _, first := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		sigs := make(chan os.Signal)
		ctx, cancel := context.WithCancel(context.Background())
		force := make(chan struct{})
		alls := make(chan struct{}, 2)
		forced, stop := handleSignals(sigs, cancel, func() { alls <- struct{}{} }, func() { close(force) })
		sigs <- syscall.SIGHUP
		<-alls
		if ctx.Err() != nil || forced() {
			t.Fatal("SIGHUP stopped")
		}
		sigs <- first
		<-ctx.Done()
		if forced() {
			t.Fatalf("one %s forced", first)
		}
		select {
		case <-force:
			t.Fatalf("one %s forced the stop", first)
		default:
		}
		sigs <- os.Interrupt
		<-force
		if !forced() {
			t.Errorf("a second signal did not force")
		}
		stop()
	}
	// done ends the handling without any signal.
	_, stop := (&Manager{force: make(chan struct{})}).HandleSignals(make(chan os.Signal), func() {})
	stop()
}

// TestReconcileLog: lines come out in order, all of them once close
// returns; records after close are dropped.
func TestReconcileLog(t *testing.T) {
	var b strings.Builder
	l := newReconcileLog(&b)
	for i := range 100 {
		l.record(controller.ReconcileRecord{Controller: "c", Request: store.Key{Name: strconv.Itoa(i)}, Trigger: controller.Trigger{Kind: controller.TriggerAll}})
	}
	l.close()
	l.record(controller.ReconcileRecord{Controller: "late"})
	l.close()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 100 {
		t.Fatalf("%d lines, want 100", len(lines))
	}
	for i, line := range lines {
		if f := strings.Fields(line); len(f) < 3 || f[2] != strconv.Itoa(i) {
			t.Fatalf("line %d: %q", i, line)
		}
	}
}

// TestNilHandler: a daemon without controllers lists none and passes
// /readyz on.
func TestNilHandler(t *testing.T) {
	var m *Manager
	h := m.Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) }))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/debug/controllers", nil))
	if got := strings.TrimSpace(rec.Body.String()); got != "[]" {
		t.Errorf("/debug/controllers = %q, want []", got)
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
	if rec.Code != http.StatusTeapot {
		t.Errorf("/readyz = %d, want the next handler's", rec.Code)
	}
}
