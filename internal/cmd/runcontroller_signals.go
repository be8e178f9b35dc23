package cmd

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// handleSignals stops gracefully (cancel) on the first SIGINT or SIGTERM,
// forces (closes force) on the second, and calls reconcileAll on SIGHUP.
// forced says whether the second came. stop ends the handling.
func (o *RunControllerOptions) handleSignals(cancel context.CancelFunc, force chan struct{}, reconcileAll func()) (forced func() bool, stop func()) {
	sigs := o.signals
	if sigs == nil {
		sigs = make(chan os.Signal, 4)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	}
	done := make(chan struct{})
	var mu sync.Mutex
	var wasForced bool
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
					cancel()
					continue
				}
				mu.Lock()
				wasForced = true
				mu.Unlock()
				close(force)
				return
			case <-done:
				return
			}
		}
	})
	forced = func() bool { mu.Lock(); defer mu.Unlock(); return wasForced }
	stop = func() {
		if o.signals == nil {
			signal.Stop(sigs)
		}
		close(done)
		wg.Wait()
	}
	return forced, stop
}
