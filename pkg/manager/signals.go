package manager

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
)

// HandleSignals is the stop policy of a run: the first SIGINT or SIGTERM
// calls stop (Run's context: a graceful stop), the second forces (Force),
// SIGHUP reconciles every object again (ReconcileAll). sigs delivers them
// (tests); nil listens to the process's. forced says whether the second
// came; done ends the handling.
func (m *Manager) HandleSignals(sigs chan os.Signal, stop context.CancelFunc) (forced func() bool, done func()) {
	return handleSignals(sigs, stop, m.ReconcileAll, m.Force)
}

func handleSignals(sigs chan os.Signal, stop context.CancelFunc, reconcileAll, force func()) (forced func() bool, done func()) {
	own := sigs == nil
	if own {
		sigs = make(chan os.Signal, 4)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	}
	quit := make(chan struct{})
	var wasForced atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		stops := 0
		for {
			select {
			case s := <-sigs:
				if s == syscall.SIGHUP {
					reconcileAll()
					continue
				}
				if stops++; stops == 1 {
					stop()
					continue
				}
				wasForced.Store(true)
				force()
				return
			case <-quit:
				return
			}
		}
	})
	done = func() {
		if own {
			signal.Stop(sigs)
		}
		close(quit)
		wg.Wait()
	}
	return wasForced.Load, done
}
