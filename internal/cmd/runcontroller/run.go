package runcontroller

import (
	"context"
	"fmt"
	"io"

	"k8s.io/client-go/rest"

	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/cli"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/manager"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
)

// Run lists the built-ins, or runs the controllers named until a signal
// stops them (see runControllerLong).
func (o *RunControllerOptions) Run(ctx context.Context) error {
	if o.List {
		return printBuiltins(o.Out, o.registry.All())
	}
	cli.TuneGC(true) // a controller's stores hold whole objects, packed
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	cfg, err := o.configFlags.ToRESTConfig()
	if err != nil {
		return fmt.Errorf("reading the kubeconfig: %w", err)
	}
	set, err := o.newSet(manager.ClientConfig(cfg))
	if err != nil {
		return err
	}
	m, err := manager.New(runCtx, o.managerConfig(cfg, set))
	if err != nil {
		return err
	}
	defer m.Close()
	forced, stopSignals := m.HandleSignals(o.signals, cancel)
	defer stopSignals()
	err = m.Run(runCtx)
	if forced() {
		return cli.ErrInterrupted
	}
	return err
}

// managerConfig is the run the flags ask for.
func (o *RunControllerOptions) managerConfig(cfg *rest.Config, set *reflector.Set) manager.Config {
	mc := manager.Config{
		Builtins: o.builtins, REST: cfg, Set: set, Namespace: o.namespace,
		Concurrency: o.Concurrency, Debounce: o.Debounce, DryRun: o.DryRun,
		Log: o.log(), HealthAddr: o.MetricsAddr,
	}
	if o.LeaderElect {
		mc.LeaderElection = &manager.LeaderElection{
			Namespace: o.LeaderElectNamespace, Name: manager.LeaseName(o.builtins),
			LeaseDuration: o.Lease.LeaseDuration, RenewDeadline: o.Lease.RenewDeadline, RetryPeriod: o.Lease.RetryPeriod,
		}
	}
	return mc
}

// log is where the reconcile log goes: stderr, unless -q.
func (o *RunControllerOptions) log() io.Writer {
	if o.Quiet {
		return nil
	}
	return o.ErrOut
}

// newSet is run-controller's reflector Set: its retries reported on
// stderr.
func (o *RunControllerOptions) newSet(cfg *rest.Config) (*reflector.Set, error) {
	mapper, err := o.configFlags.ToRESTMapper()
	if err != nil {
		return nil, fmt.Errorf("reading the server's resource types: %w", err)
	}
	rc, err := kube.NewRESTClient(cfg)
	if err != nil {
		return nil, err
	}
	report := cli.NewReporter(o.ErrOut, false)
	return reflector.NewSet(reflector.SetOptions{NewClient: reflector.RESTClients(rc, kube.RediscoverWith(mapper)), Hooks: report.Hooks(true)}), nil
}
