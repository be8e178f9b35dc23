package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/spf13/pflag"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/builtin"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/controller"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
)

// serveControllers are serve's --controllers: built-in controllers (the
// ones run-controller runs, started by the same code) run in the daemon on
// its reflector Set, so that a kind the daemon serves and a controller
// reads is one watch. They run in every namespace, as the daemon caches
// (in the namespace of -n, with it).
type serveControllers struct {
	// Controllers is the --controllers list, NAME[,NAME...].
	Controllers string
	// Quiet prints no line per reconcile.
	Quiet bool

	builtins []builtin.Spec
	ctrls    []*controller.Controller
	runner   *RunControllerOptions
	signals  chan os.Signal // nil: the process's (see RunControllerOptions.signals)
}

func (sc *serveControllers) addFlags(f *pflag.FlagSet) {
	f.StringVar(&sc.Controllers, "controllers", "", "Run these built-in controllers in the daemon, on its caches, in every namespace (-n: in its namespace; NAME[,NAME...]; see 'kubectl reflect run-controller --list'); the kinds they read are served too")
	f.BoolVarP(&sc.Quiet, "quiet", "q", false, "Print no line per reconcile of --controllers")
}

// servedScope is the scope of every reflector of the daemon: Tables for
// kubectl, packed objects for a long life, whole objects (a client may ask
// for managedFields). The Set rewrites its controllers' scopes to it
// (reflector.SetOptions.Scope): one watch per kind.
func servedScope(s kube.Scope) kube.Scope {
	s.Table, s.Pack, s.Prune = true, true, object.Prune{}
	return s
}

// complete looks the controllers up, and adds the kinds they read to
// args (serve's KIND[,KIND...]): unknown names fail here, before anything
// starts.
func (sc *serveControllers) complete(args []string) ([]string, error) {
	if sc.Controllers == "" {
		return args, nil
	}
	var err error
	if sc.builtins, err = lookupBuiltins(builtins(), sc.Controllers); err != nil {
		return nil, err
	}
	var reads []string
	for _, b := range sc.builtins {
		reads = append(reads, b.Reads...)
	}
	return withKinds(args, reads), nil
}

// withKinds adds kinds to the KIND[,KIND...] argument; arguments that name
// objects are left as they are (serve refuses them).
func withKinds(args, kinds []string) []string {
	switch {
	case len(kinds) == 0:
		return args
	case len(args) == 0:
		return []string{strings.Join(kinds, ",")}
	case len(args) == 1 && !strings.Contains(args[0], "/"):
		return []string{args[0] + "," + strings.Join(kinds, ",")}
	}
	return args
}

// startControllers builds the controllers on set, their metrics in
// registry (see RunControllerOptions.start); closing force stops their
// reconciles in flight (controller.Options.ForceStop); stop flushes what
// they leave once they stopped.
func (o *ServeOptions) startControllers(ctx context.Context, set *reflector.Set, registry prometheus.Registerer, force <-chan struct{}) (stop func(), err error) {
	if len(o.builtins) == 0 {
		return func() {}, nil
	}
	o.runner = &RunControllerOptions{
		configFlags: o.configFlags, IOStreams: o.IOStreams, builtins: o.builtins, Concurrency: 1, Quiet: o.Quiet,
		signals: o.signals, namespace: o.only,
	}
	o.ctrls, _, stop, err = o.runner.start(ctx, set, registry, force)
	return stop, err
}

// handleControllerSignals gives the daemon run-controller's signals when
// it runs controllers (RunControllerOptions.handleSignals): the first
// SIGINT or SIGTERM stops gracefully (cancel), a second closes force (the
// reconciles in flight stop at once; forced then says so) and SIGHUP
// reconciles every object again. Without controllers it handles none.
func (o *ServeOptions) handleControllerSignals(cancel context.CancelFunc, force chan struct{}) (forced func() bool, stop func()) {
	if len(o.ctrls) == 0 {
		return func() bool { return false }, func() {}
	}
	return o.runner.handleSignals(cancel, force, func() { reconcileAll(o.ctrls) })
}

// runControllers runs the controllers until ctx ends (gracefully: the
// reconciles in flight finish) or one fails; failed receives that error.
// wait waits for them to stop.
func (o *ServeOptions) runControllers(ctx context.Context) (failed <-chan error, wait func()) {
	ch := make(chan error, 1)
	if len(o.ctrls) == 0 {
		return ch, func() {}
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := o.runner.runAll(ctx, o.ctrls); err != nil {
			ch <- fmt.Errorf("controller %w", err)
		}
	})
	return ch, wg.Wait
}

// ControllerStatus is what the daemon reports of one controller at
// /debug/controllers.
type ControllerStatus struct {
	Name  string `json:"name"`
	Ready bool   `json:"ready"`
	// Reconciles are the reconciles done since the start, whatever their
	// result.
	Reconciles uint64 `json:"reconciles"`
}

// controllersStatus reports every controller, reading their reconcile
// counts from g (controller.NewMetrics's registry).
func controllersStatus(ctrls []*controller.Controller, g prometheus.Gatherer) []ControllerStatus {
	counts := map[string]uint64{}
	families, _ := g.Gather()
	for _, f := range families {
		if f.GetName() == "controller_runtime_reconcile_total" {
			for _, m := range f.GetMetric() {
				counts[labelValue(m, "controller")] += uint64(m.GetCounter().GetValue())
			}
		}
	}
	out := make([]ControllerStatus, 0, len(ctrls))
	for _, c := range ctrls {
		out = append(out, ControllerStatus{Name: c.Name(), Ready: isReady(c), Reconciles: counts[c.Name()]})
	}
	return out
}

func labelValue(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

func isReady(c *controller.Controller) bool {
	select {
	case <-c.Ready():
		return true
	default:
		return false
	}
}

// withControllers serves /debug/controllers (ControllerStatus, JSON) and
// answers /readyz 503 until every controller is ready; the rest, and
// /readyz then, go to h.
func withControllers(h http.Handler, ctrls []*controller.Controller, g prometheus.Gatherer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch strings.TrimSuffix(r.URL.Path, "/") {
		case "/debug/controllers":
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(controllersStatus(ctrls, g))
			return
		case "/readyz":
			for _, c := range ctrls {
				if !isReady(c) {
					w.Header().Set("Content-Type", "text/plain; charset=utf-8")
					w.WriteHeader(http.StatusServiceUnavailable)
					fmt.Fprintf(w, "controller %s is not ready yet", c.Name())
					return
				}
			}
		}
		h.ServeHTTP(w, r)
	})
}
