package cmd

import (
	"context"
	"errors"
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

func testRegistry() *builtin.Registry {
	return builtin.NewRegistry(
		builtin.Spec{Name: "mirror", Description: "Copies", Reads: []string{"secrets", "configmaps"}, Writes: []string{"secrets"}},
		builtin.Spec{Name: "configmap-generator", Description: "Generates", Reads: []string{"cmg"}, Writes: []string{"configmaps"}, CRD: []byte("crd")},
	)
}

func TestLookupBuiltins(t *testing.T) {
	r := testRegistry()
	for _, tc := range []struct {
		list, want, err string
	}{
		{list: "mirror", want: "mirror"},
		{list: "mirror,configmap-generator,mirror", want: "mirror,configmap-generator"},
		{list: "mirror, configmap-generator", want: "mirror,configmap-generator"},
		{list: "nope", err: `unknown controller "nope"`},
		{list: "mirror,", err: "empty controller name"},
	} {
		bs, err := lookupBuiltins(r, tc.list)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.list, err, tc.err)
			}
			continue
		}
		var names []string
		for _, b := range bs {
			names = append(names, b.Name)
		}
		if got := strings.Join(names, ","); err != nil || got != tc.want {
			t.Errorf("%q: %q, %v; want %q", tc.list, got, err, tc.want)
		}
	}
	o := &RunControllerOptions{}
	o.builtins, _ = lookupBuiltins(r, "mirror,configmap-generator")
	if got := o.leaseName(); got != "kubectl-reflect-configmap-generator-mirror" {
		t.Errorf("leaseName = %q", got)
	}
}

func TestPrintBuiltins(t *testing.T) {
	var b strings.Builder
	if err := printBuiltins(&b, testRegistry().All()); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"NAME                  DESCRIPTION   READS                WRITES\n" +
		"configmap-generator   Generates     cmg                  configmaps\n" +
		"mirror                Copies        secrets,configmaps   secrets\n"
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestCompleteBuiltins(t *testing.T) {
	r := testRegistry()
	for _, tc := range []struct {
		list       bool
		toComplete string
		want       string
	}{
		{true, "", "configmap-generator,mirror"},
		{true, "m", "mirror"},
		{true, "mirror,", "mirror,configmap-generator"},
		{true, "mirror,c", "mirror,configmap-generator"},
		{false, "", "configmap-generator"},
	} {
		got, _ := completeBuiltins(r, tc.list)(nil, nil, tc.toComplete)
		if s := strings.Join(got, ","); s != tc.want {
			t.Errorf("complete(list=%v, %q) = %q, want %q", tc.list, tc.toComplete, s, tc.want)
		}
	}
}

// TestHandleSignals: SIGHUP reconciles everything again, the first SIGINT
// or SIGTERM stops gracefully, the second forces.
func TestHandleSignals(t *testing.T) {
	for _, first := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		sigs := make(chan os.Signal)
		o := &RunControllerOptions{signals: sigs}
		ctx, cancel := context.WithCancel(context.Background())
		force := make(chan struct{})
		alls := make(chan struct{}, 2)
		forced, stop := o.handleSignals(cancel, force, func() { alls <- struct{}{} })
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
			t.Fatalf("one %s closed force", first)
		default:
		}
		sigs <- os.Interrupt
		<-force
		if !forced() {
			t.Errorf("a second signal did not force")
		}
		stop()
	}
	// stop ends the handling without any signal.
	o := &RunControllerOptions{signals: make(chan os.Signal)}
	_, stop := o.handleSignals(func() {}, make(chan struct{}), func() {})
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
