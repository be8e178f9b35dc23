package controller

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"
)

// LeaderElection configures RunWithLeaderElection: a coordination.k8s.io
// Lease Namespace/Name held by Identity.
type LeaderElection struct {
	Client          kubernetes.Interface
	Namespace, Name string
	// Identity tells the candidates apart; "" is the hostname and a random
	// suffix (controller-runtime's choice).
	Identity string
	// LeaseDuration, RenewDeadline and RetryPeriod are client-go's; zero
	// is controller-runtime's default: 15s, 10s, 2s.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
}

// ErrLeadershipLost is returned (wrapped) by RunWithLeaderElection when the
// lease could not be renewed while run ran.
var ErrLeadershipLost = errors.New("leadership lost")

// RunWithLeaderElection waits until this process holds the lease, then
// calls run, and returns what run returns.
//
// When ctx ends before the lease is held, it returns nil without calling
// run. When ctx ends while run runs, run's ctx ends too (a graceful stop),
// and the lease is released only after run returned, so that another
// process never reconciles beside it. When the lease cannot be renewed
// (another process took it, the server is unreachable past the renew
// deadline), run's ctx is cancelled and, once run returned, the error wraps
// ErrLeadershipLost: the caller should exit, as a controller that lost its
// lease must not go on.
func RunWithLeaderElection(ctx context.Context, le LeaderElection, run func(ctx context.Context) error) error {
	le, err := le.complete()
	if err != nil {
		return err
	}
	e := &election{ctx: ctx, run: run, ran: make(chan struct{})}
	var electCtx context.Context
	electCtx, e.stopElection = context.WithCancel(context.WithoutCancel(ctx))
	defer e.stopElection()
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: &resourcelock.LeaseLock{
			LeaseMeta:  metav1.ObjectMeta{Namespace: le.Namespace, Name: le.Name},
			Client:     le.Client.CoordinationV1(),
			LockConfig: resourcelock.ResourceLockConfig{Identity: le.Identity},
		},
		LeaseDuration: le.LeaseDuration, RenewDeadline: le.RenewDeadline, RetryPeriod: le.RetryPeriod,
		ReleaseOnCancel: true,
		Name:            le.Name,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: e.lead,
			OnStoppedLeading: func() {},
		},
	})
	if err != nil {
		return fmt.Errorf("leader election: %w", err)
	}
	stopStandby := context.AfterFunc(ctx, e.stopIfStandby)
	defer stopStandby()
	elector.Run(electCtx)
	return e.result(le)
}

func (le LeaderElection) complete() (LeaderElection, error) {
	if le.Client == nil || le.Namespace == "" || le.Name == "" {
		return le, errors.New("leader election: a client, a namespace and a lease name are required")
	}
	if le.Identity == "" {
		host, err := os.Hostname()
		if err != nil {
			return le, fmt.Errorf("leader election: identity: %w", err)
		}
		le.Identity = host + "_" + newReconcileID()
	}
	le.LeaseDuration = cmpOr(le.LeaseDuration, 15*time.Second)
	le.RenewDeadline = cmpOr(le.RenewDeadline, 10*time.Second)
	le.RetryPeriod = cmpOr(le.RetryPeriod, 2*time.Second)
	return le, nil
}

func cmpOr(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// election is one RunWithLeaderElection: the elector's ctx ends when run
// returned, or when ctx ends before this process leads.
type election struct {
	ctx          context.Context
	run          func(context.Context) error
	stopElection context.CancelFunc

	mu      sync.Mutex
	over    bool // the elector stopped: too late to lead
	leading bool // run was called
	lost    bool // the lease was lost while run ran
	runErr  error
	ran     chan struct{} // closed when run returned
}

// lead runs run on the elector's leading ctx (cancelled when the lease is
// lost), also cancelled when the caller's ctx ends.
func (e *election) lead(leadCtx context.Context) {
	e.mu.Lock()
	if e.over || e.ctx.Err() != nil {
		e.mu.Unlock()
		e.stopElection()
		return
	}
	e.leading = true
	e.mu.Unlock()
	klog.FromContext(e.ctx).V(1).Info("Became the leader")
	runCtx, cancel := context.WithCancel(leadCtx)
	stop := context.AfterFunc(e.ctx, cancel)
	err := e.run(runCtx)
	// The elector cancels leadCtx when it cannot renew; it is cancelled
	// otherwise only after run returned (stopElection), so a leadCtx ended
	// while the caller's goes on means the lease was lost.
	lost := leadCtx.Err() != nil && e.ctx.Err() == nil
	stop()
	cancel()
	e.mu.Lock()
	e.lost, e.runErr = lost, err
	e.mu.Unlock()
	close(e.ran)
	e.stopElection() // releases the lease
}

func (e *election) stopIfStandby() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.leading {
		e.stopElection()
	}
}

// result waits for run, if it was called, and says how it ended.
func (e *election) result(le LeaderElection) error {
	e.mu.Lock()
	e.over = true
	leading := e.leading
	e.mu.Unlock()
	lost := fmt.Errorf("lease %s/%s: %w", le.Namespace, le.Name, ErrLeadershipLost)
	if !leading {
		if e.ctx.Err() != nil {
			return nil // stopped while a standby
		}
		return lost // acquired and lost before run started
	}
	<-e.ran
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.lost {
		return errors.Join(lost, e.runErr)
	}
	return e.runErr
}
