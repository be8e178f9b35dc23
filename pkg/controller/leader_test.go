package controller

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
)

// candidate runs RunWithLeaderElection as identity; its run reports that
// it leads and waits for its ctx.
type candidate struct {
	leads  chan struct{} // closed when run starts
	runCtx chan error    // run's ctx error once it ended
	done   chan error    // RunWithLeaderElection's result
	cancel context.CancelFunc
}

func startCandidate(t *testing.T, client kubernetes.Interface, identity string) *candidate {
	c := &candidate{leads: make(chan struct{}), runCtx: make(chan error, 1), done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(t.Context())
	c.cancel = cancel
	le := LeaderElection{Client: client, Namespace: "kube-system", Name: "test", Identity: identity}
	go func() {
		c.done <- RunWithLeaderElection(ctx, le, func(ctx context.Context) error {
			close(c.leads)
			<-ctx.Done()
			c.runCtx <- ctx.Err()
			return nil
		})
	}()
	return c
}

func leads(c *candidate) bool {
	select {
	case <-c.leads:
		return true
	default:
		return false
	}
}

func TestLeaderElectionHandsOver(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client := fake.NewClientset()
		a := startCandidate(t, client, "a")
		synctest.Wait()
		if !leads(a) {
			t.Fatal("the first candidate does not lead")
		}
		b := startCandidate(t, client, "b")
		time.Sleep(time.Minute)
		if leads(b) {
			t.Fatal("two candidates lead at once")
		}
		a.cancel()
		if err := <-a.done; err != nil {
			t.Fatalf("the leader stopped with %v, want nil", err)
		}
		time.Sleep(5 * time.Second) // a retry period, jittered: the released lease is taken then
		if !leads(b) {
			t.Fatal("the standby does not lead after the leader released the lease")
		}
		b.cancel()
		if err := <-b.done; err != nil {
			t.Fatal(err)
		}
	})
}

func TestLeaderElectionStandbyStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client := fake.NewClientset()
		a := startCandidate(t, client, "a")
		synctest.Wait()
		b := startCandidate(t, client, "b")
		synctest.Wait()
		b.cancel()
		if err := <-b.done; err != nil || leads(b) {
			t.Fatalf("a standby stopped with %v (led: %v), want nil without leading", err, leads(b))
		}
		a.cancel()
		<-a.done
	})
}

func TestLeaderElectionLost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client := fake.NewClientset()
		// The server can become unreachable for the leader's writes (the
		// reactor is installed first: the fake's reactors are not safe to
		// change while the client is used).
		var unreachable atomic.Bool
		client.PrependReactor("update", "leases", func(clienttesting.Action) (bool, runtime.Object, error) {
			return unreachable.Load(), nil, errors.New("connection refused")
		})
		a := startCandidate(t, client, "a")
		synctest.Wait()
		if !leads(a) {
			t.Fatal("no leader")
		}
		unreachable.Store(true)
		err := <-a.done
		if !errors.Is(err, ErrLeadershipLost) {
			t.Fatalf("RunWithLeaderElection returned %v, want leadership lost", err)
		}
		if ctxErr := <-a.runCtx; ctxErr == nil {
			t.Fatal("run's ctx did not end when the lease was lost")
		}
		a.cancel()
	})
}

func TestLeaderElectionValidates(t *testing.T) {
	err := RunWithLeaderElection(t.Context(), LeaderElection{Namespace: "ns", Name: "x"}, func(context.Context) error { return nil })
	if err == nil {
		t.Fatal("no error without a client")
	}
}
