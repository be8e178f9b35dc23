package runcontroller

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"
)

// LeaseTiming is how --leader-elect holds its Lease, under
// kube-controller-manager's flag names and defaults: a standby takes over a
// Lease not renewed for LeaseDuration; the leader gives up when it cannot
// renew within RenewDeadline; both try every RetryPeriod.
type LeaseTiming struct {
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
}

func addLeaseFlags(f *pflag.FlagSet, l *LeaseTiming) {
	f.DurationVar(&l.LeaseDuration, "leader-elect-lease-duration", 15*time.Second, "With --leader-elect: how long a standby waits after the leader's last renewal before it takes the Lease")
	f.DurationVar(&l.RenewDeadline, "leader-elect-renew-deadline", 10*time.Second, "With --leader-elect: how long the leader tries to renew the Lease before it stops leading (and exits); less than the lease duration")
	f.DurationVar(&l.RetryPeriod, "leader-elect-retry-period", 2*time.Second, "With --leader-elect: how often to try to acquire or renew the Lease")
}

// validate checks what client-go's leader election requires, in the
// flags' words.
func (l LeaseTiming) validate() error {
	const jitter = 1.2 // client-go's leaderelection.JitterFactor
	switch {
	case l.RetryPeriod <= 0:
		return fmt.Errorf("--leader-elect-retry-period must be positive, got %s", l.RetryPeriod)
	case l.LeaseDuration <= l.RenewDeadline:
		return fmt.Errorf("--leader-elect-lease-duration (%s) must be greater than --leader-elect-renew-deadline (%s)", l.LeaseDuration, l.RenewDeadline)
	case float64(l.RenewDeadline) <= jitter*float64(l.RetryPeriod):
		return fmt.Errorf("--leader-elect-renew-deadline (%s) must be greater than %.1f times --leader-elect-retry-period (%s)", l.RenewDeadline, jitter, l.RetryPeriod)
	}
	return nil
}
