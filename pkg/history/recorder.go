package history

import (
	"context"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// Source is what a Recorder records: a reflector.Handle.
type Source interface {
	Resource() kube.Resource
	Columns() []object.Column
	ResourceVersion() string
	Subscribe(ctx context.Context, opts store.SubscribeOptions) *store.Subscription[*object.Object]
}

// RecorderOptions tune a Recorder.
type RecorderOptions struct {
	// SecretData records Secrets' data as it is; by default each value is
	// replaced by its SHA-256 (see HashSecretData).
	SecretData bool
	// OnError is told of a batch that could not be written (a full disk,
	// a damaged file), before the recorder retries it, and of the retry
	// that succeeded (err nil); nil: not told.
	OnError func(res string, err error)
	// Linger is how long the recorder waits for more changes after one
	// before it writes them in one transaction (default 100ms; negative:
	// not at all).
	Linger time.Duration
	// Heartbeat is how often a recorder that waits for changes writes
	// that its record is current (default 10s).
	Heartbeat time.Duration
	// LeaseRenewals is how often a Lease's renewal alone (a change of
	// spec.renewTime only) is recorded: at most once per interval per
	// Lease (default 5m; negative: every one). Other changes of Leases are
	// all recorded.
	LeaseRenewals time.Duration
	// OnWrite is told of each batch written: the resourceVersion the
	// record of res is complete to and the revisions written (metrics,
	// tests); nil: not told.
	OnWrite func(res string, rv uint64, revisions int)
}

// maxBatch bounds the revisions written in one transaction; a change
// waits at most defaultLinger for others to share it. A recorder that
// waits heartbeat for a change writes that its record is current: a gap
// after a crash starts at most that long before it, not at the resource's
// last change.
const (
	maxBatch      = 2048
	defaultLinger = 100 * time.Millisecond
	heartbeat     = 10 * time.Second
)

// Recorder writes every change of its sources' stores to a Record.
type Recorder struct {
	store Record
	opts  RecorderOptions
}

// NewRecorder returns a Recorder writing to s.
func NewRecorder(s Record, opts RecorderOptions) *Recorder {
	if opts.OnError == nil {
		opts.OnError = func(string, error) {}
	}
	if opts.Linger == 0 {
		opts.Linger = defaultLinger
	}
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = heartbeat
	}
	if opts.OnWrite == nil {
		opts.OnWrite = func(string, uint64, int) {}
	}
	return &Recorder{store: s, opts: opts}
}

// ResourceName is the name a store records res under:
// resource.version.group ("configmaps.v1.", "deployments.v1.apps").
func ResourceName(res kube.Resource) string {
	return res.GVR.Resource + "." + res.GVR.Version + "." + res.GVR.Group
}

// Record records src's changes until ctx ends: what its store holds when
// it first syncs (what differs from the record: the changes made while
// nothing recorded, deletions included, at the list's resourceVersion),
// then every change in the order the store applied it. A batch that fails
// to write is retried (with OnError told) until it is written or ctx
// ends; meanwhile the store's queue for the recorder may overflow, which
// it answers with its whole state: the recorder then records the
// differences and marks the changes it missed as a gap.
func (r *Recorder) Record(ctx context.Context, src Source) error {
	return r.Start(ctx, src)()
}

// Start subscribes to src now and returns what records its changes (see
// Record), to run on a goroutine: a caller that must be subscribed before
// the store first syncs (a daemon whose reflectors start from the record)
// subscribes first, then lets them start.
func (r *Recorder) Start(ctx context.Context, src Source) (run func() error) {
	res := ResourceName(src.Resource())
	rs := &recordRun{r: r, src: src, res: res, secrets: IsSecrets(src.Resource()) && !r.opts.SecretData, renewals: newRenewals(res, r.opts.LeaseRenewals)}
	sub := src.Subscribe(ctx, store.SubscribeOptions{Mode: store.Ordered})
	return func() error {
		defer sub.Close()
		return rs.run(ctx, sub)
	}
}

// run records what sub brings until ctx ends.
func (rs *recordRun) run(ctx context.Context, sub *store.Subscription[*object.Object]) error {
	for {
		c, err := rs.next(ctx, sub)
		if err != nil {
			return rs.finish(sub)
		}
		if err := rs.take(ctx, c); err != nil {
			return rs.finish(sub)
		}
		if err := rs.gather(ctx, sub); err != nil {
			return rs.finish(sub)
		}
		if err := rs.flush(ctx); err != nil {
			return nil
		}
	}
}

// gather adds to the batch what comes within linger of its first change,
// up to maxBatch, so that a transaction's own cost (begin, the resource's
// row, a mark, commit) is paid once per batch, not per change. It sleeps
// out the linger rather than wait for each change: a change the store
// queues meanwhile wakes no goroutine (a wakeup per change cost about as
// much as the change's encoding), and the queue holds a whole state and
// more (store.DefaultOrderedLimit) before it overflows; what is queued
// beyond maxBatch starts the next batch at once.
func (rs *recordRun) gather(ctx context.Context, sub *store.Subscription[*object.Object]) error {
	deadline := time.Now().Add(rs.r.opts.Linger)
	for len(rs.batch.Revisions) < maxBatch {
		c, ok, err := sub.TryNext()
		if err != nil {
			return nil
		}
		if !ok {
			rs.alive() // the store's changes until now are in the batch
			if !time.Now().Before(deadline) {
				return nil
			}
			if err := sleep(ctx, time.Until(deadline)); err != nil {
				return err
			}
			continue
		}
		if err := rs.take(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

// sleep returns after d, or with ctx's error when ctx ends first.
func sleep(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// recordRun is one Record call's state.
type recordRun struct {
	r       *Recorder
	src     Source
	res     string
	secrets bool
	// known: the objects present in the record, by key, with their
	// resourceVersion; nil until the first sync is recorded.
	known map[string]uint64
	// sync is the whole state being taken (the first, or after a Resync),
	// nil between them.
	sync  *syncing
	batch Batch
	// buf holds the JSON of the batch's revisions (Object, Before), one
	// after another, and is kept from batch to batch: the store keeps none
	// of it (Record.Write). Two new slices per change left 2.7 KB of
	// garbage per 1 KiB ConfigMap changed (BenchmarkRecord), and every GC
	// cycle it brings on scans the daemon's whole store.
	buf     []byte
	columns string
	relist  string // the resourceVersion of the last relist marked (relisted)
	// last is the resourceVersion of the last change taken.
	last uint64
	// late, while the recorder catches up after a restart, dates the
	// changes it sees; nil once they come as they happen.
	late *lateness
	// start is what the record held when the first state began.
	start Start
	// renewals coalesces Leases' renewals; nil for other resources.
	renewals *renewals
}

// syncing is a whole state being diffed against the record.
type syncing struct {
	begun bool
	// present: what the record holds (Record.Begin) that the state has not
	// shown yet; what is left at Synced is gone.
	present map[string]uint64
	known   map[string]uint64 // the state so far
}
