package manager

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/builtin"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/controller"
)

// Run runs the controllers until ctx ends or one fails (see the package's
// doc), under leader election and beside a health server as Config says.
func (m *Manager) Run(ctx context.Context) error {
	var leading atomic.Bool
	run := m.runAll
	health := controller.HealthOptions{Gatherer: m.registry, Controllers: m.ctrls}
	if le := m.cfg.LeaderElection; le != nil {
		health.Leading = leading.Load
		lease := controller.LeaderElection{Client: m.plain, Namespace: le.Namespace, Name: le.Name,
			LeaseDuration: le.LeaseDuration, RenewDeadline: le.RenewDeadline, RetryPeriod: le.RetryPeriod}
		m.say("waiting to lead: Lease %s/%s", lease.Namespace, lease.Name)
		run = func(ctx context.Context) error {
			return controller.RunWithLeaderElection(ctx, lease, func(ctx context.Context) error {
				leading.Store(true)
				m.say("leading: Lease %s/%s", lease.Namespace, lease.Name)
				return m.runAll(ctx)
			})
		}
	}
	if m.cfg.HealthAddr == "" {
		return run(ctx)
	}
	srv, err := controller.ListenHealth(m.cfg.HealthAddr, health)
	if err != nil {
		return err
	}
	m.say("serving /metrics, /healthz and /readyz on http://%s", srv.Addr())
	srvCtx, stopServing := context.WithCancel(context.WithoutCancel(ctx))
	served := make(chan error, 1)
	go func() { served <- srv.Run(srvCtx) }()
	err = run(ctx)
	stopServing()
	return errors.Join(err, <-served)
}

// runAll runs the controllers until ctx ends, and says when each is
// ready. A controller that fails stops the others.
func (m *Manager) runAll(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m.announce()
	var wg sync.WaitGroup
	errs := make([]error, len(m.ctrls))
	for i, c := range m.ctrls {
		wg.Go(func() {
			if errs[i] = c.Run(ctx); errs[i] != nil {
				errs[i] = fmt.Errorf("%s: %w", c.Name(), errs[i])
				cancel()
			}
		})
		wg.Go(func() {
			select {
			case <-c.Ready():
				m.say("%s: ready", c.Name())
			case <-ctx.Done():
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// announce says what runs where.
func (m *Manager) announce() {
	where := "in namespace " + m.cfg.Namespace
	if m.cfg.Namespace == "" {
		where = "in every namespace"
	}
	dry := ""
	if m.cfg.DryRun {
		dry = " (dry run: nothing is written)"
	}
	m.say("running %s %s%s", strings.Join(names(m.cfg.Builtins), ", "), where, dry)
}

// say writes a line about the run on Config.Log, if set.
func (m *Manager) say(format string, args ...any) {
	if m.cfg.Log != nil {
		fmt.Fprintf(m.cfg.Log, format+"\n", args...)
	}
}

// LeaseName is the leader election Lease of a run of specs:
// kubectl-reflect-NAMES, the names sorted and joined by "-".
func LeaseName(specs []builtin.Spec) string {
	ns := names(specs)
	slices.Sort(ns)
	return FieldManager + "-" + strings.Join(ns, "-")
}

func names(specs []builtin.Spec) []string {
	out := make([]string, len(specs))
	for i, b := range specs {
		out[i] = b.Name
	}
	return out
}
