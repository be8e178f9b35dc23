package daemon

import (
	"context"
	"fmt"
	"sync"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/manager"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
)

// controllers are the daemon's Config.Controllers: built-in controllers
// run by pkg/manager on the daemon's reflector Set, so that a kind the
// daemon serves and a controller reads is one watch. Without controllers,
// mgr is nil and they do nothing.
type controllers struct {
	mgr    *manager.Manager
	forced func() bool
	stop   func()
}

// startControllers builds the controllers on set, their metrics beside the
// daemon's, and takes run-controller's signals (manager.HandleSignals):
// the first SIGINT or SIGTERM stops gracefully (cancel), a second stops
// the reconciles in flight (forced then says so), SIGHUP reconciles every
// object again. stop ends the handling and flushes what the controllers
// leave once they stopped.
func (d *daemonRun) startControllers(ctx context.Context, set *reflector.Set, metrics *serveMetrics, cancel context.CancelFunc) (controllers, error) {
	if len(d.cfg.Controllers.Builtins) == 0 {
		return controllers{forced: func() bool { return false }, stop: func() {}}, nil
	}
	mc := d.cfg.Controllers
	mc.REST, mc.Set, mc.Namespace, mc.Concurrency, mc.Registry = d.cfg.REST, set, d.cfg.Namespace, 1, metrics.registry
	mgr, err := manager.New(ctx, mc)
	if err != nil {
		return controllers{}, err
	}
	forced, stopSignals := mgr.HandleSignals(d.cfg.Signals, cancel)
	return controllers{mgr: mgr, forced: forced, stop: func() { stopSignals(); mgr.Close() }}, nil
}

// run runs the controllers until ctx ends (gracefully: the reconciles in
// flight finish) or one fails; failed receives that error. wait waits for
// them to stop.
func (c controllers) run(ctx context.Context) (failed <-chan error, wait func()) {
	ch := make(chan error, 1)
	if c.mgr == nil {
		return ch, func() {}
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := c.mgr.Run(ctx); err != nil {
			ch <- fmt.Errorf("controller %w", err)
		}
	})
	return ch, wg.Wait
}
