package history

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// Source is what a Recorder records: a reflector.Lease.
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

// Recorder writes every change of its sources' stores to a Store.
type Recorder struct {
	store Store
	opts  RecorderOptions
}

// NewRecorder returns a Recorder writing to s.
func NewRecorder(s Store, opts RecorderOptions) *Recorder {
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
	rs := &recording{r: r, src: src, res: res, secrets: IsSecrets(src.Resource()) && !r.opts.SecretData, renewals: newRenewals(res, r.opts.LeaseRenewals)}
	sub := src.Subscribe(ctx, store.SubscribeOptions{Mode: store.Ordered})
	return func() error {
		defer sub.Close()
		return rs.run(ctx, sub)
	}
}

// run records what sub brings until ctx ends.
func (rs *recording) run(ctx context.Context, sub *store.Subscription[*object.Object]) error {
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
func (rs *recording) gather(ctx context.Context, sub *store.Subscription[*object.Object]) error {
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

// recording is one Record's state.
type recording struct {
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
	// of it (Store.Write). Two new slices per change left 2.7 KB of
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
	// present: what the record holds (Store.Begin) that the state has not
	// shown yet; what is left at Synced is gone.
	present map[string]uint64
	known   map[string]uint64 // the state so far
}

// take adds c to the batch.
func (rs *recording) take(ctx context.Context, c store.Change[*object.Object]) error {
	rs.last = max(rs.last, parseRV(c.ResourceVersion))
	switch c.Type {
	case store.Resync:
		if err := rs.flush(ctx); err != nil {
			return err
		}
		rs.sync = &syncing{}
	case store.Applied:
		if rs.known == nil && rs.sync == nil {
			rs.sync = &syncing{} // the first sync: the state starts the stream
		}
		if rs.sync != nil {
			return rs.stateApplied(ctx, c)
		}
		if err := rs.relisted(ctx, c.Relist); err != nil {
			return err
		}
		rs.applied(c)
		rs.advance(c)
	case store.Deleted:
		if err := rs.relisted(ctx, c.Relist); err != nil {
			return err
		}
		rv := parseRV(c.ResourceVersion)
		if c.Relist != "" {
			rv = parseRV(c.Relist) // gone by then; when, the relist cannot tell
		}
		key := Key(c.Key.Namespace, c.Key.Name)
		if _, ok := rs.known[key]; ok {
			delete(rs.known, key)
			rs.renewals.forget(key)
			rs.add(c.Key, rv, Deleted, c.Object, nil, c.At)
		}
		rs.advance(c)
	case store.Synced:
		if rs.known == nil && rs.sync == nil {
			rs.sync = &syncing{} // the first sync, of no object
		}
		return rs.synced(ctx, parseRV(c.ResourceVersion))
	}
	return nil
}

// applied records a live change.
func (rs *recording) applied(c store.Change[*object.Object]) {
	key := Key(c.Key.Namespace, c.Key.Name)
	rv := parseRV(c.Object.ResourceVersion)
	prev, ok := rs.known[key]
	if ok && prev == rv {
		return // recorded already
	}
	op := Modified
	switch {
	case !ok && c.Relist != "":
		op = Initial // the relist found it: its creation was not seen
	case !ok:
		op = Added
	}
	var old *object.Object
	if c.HasOld {
		old = c.Old
	}
	if rs.renewals.skip(key, c.Object, old, c.At) {
		return // a renewal alone, within the interval of the last kept
	}
	rs.known[key] = rv
	rs.add(c.Key, rv, op, c.Object, old, c.At)
}

// stateApplied records an object of a whole state where it differs from
// the record. The first one reads the record (Store.Begin) at the state's
// resourceVersion: the stretch before it is a gap when the record ends
// earlier (nothing recorded, or the recorder fell behind).
func (rs *recording) stateApplied(ctx context.Context, c store.Change[*object.Object]) error {
	if err := rs.begin(ctx, parseRV(c.ResourceVersion)); err != nil {
		return err
	}
	key := Key(c.Key.Namespace, c.Key.Name)
	rv := parseRV(c.Object.ResourceVersion)
	rs.sync.known[key] = rv
	prev, ok := rs.sync.present[key]
	delete(rs.sync.present, key)
	if ok && prev == rv {
		return nil
	}
	op := Modified
	if !ok {
		op = Initial // there before the state was taken: its creation was not seen
	}
	rs.add(c.Key, rv, op, c.Object, nil, c.At)
	return nil
}

// relisted marks, at the first change a relist found (relist is its
// resourceVersion; "" for a watch event), the stretch the relist covers
// as a gap: the store relisted (its watch fell too far behind, or the
// server no longer held the resourceVersion a restarted daemon resumed
// from), so what happened between is known only by its outcome.
func (rs *recording) relisted(ctx context.Context, relist string) error {
	if relist == "" || relist == rs.relist {
		return nil
	}
	if err := rs.flush(ctx); err != nil {
		return err
	}
	rs.relist = relist
	rs.late = nil // the relist's state is exact; what it did not see is a gap
	return rs.retry(ctx, func() error {
		_, err := rs.r.store.Begin(ctx, rs.res, parseRV(relist))
		return err
	})
}

// begin reads the record when a state starts, retried as a write is.
func (rs *recording) begin(ctx context.Context, rv uint64) error {
	if rs.sync.begun {
		return nil
	}
	var start Start
	err := rs.retry(ctx, func() error {
		var err error
		start, err = rs.r.store.Begin(ctx, rs.res, rv)
		return err
	})
	if err != nil {
		return err
	}
	if rs.known == nil {
		rs.start = start
	}
	rs.sync.begun, rs.sync.present, rs.sync.known = true, start.Present, map[string]uint64{}
	return nil
}

// synced ends a whole state at rv: what the record held and the state
// lacks was deleted meanwhile, recorded at rv.
func (rs *recording) synced(ctx context.Context, rv uint64) error {
	if rs.sync == nil {
		return nil // a late join's marker: nothing pending
	}
	if err := rs.begin(ctx, rv); err != nil {
		return err
	}
	now := time.Now()
	for key := range rs.sync.present {
		ns, name := splitKey(key)
		rs.batch.Revisions = append(rs.batch.Revisions, Revision{Namespace: ns, Name: name, RV: rv, Time: now, Op: Deleted})
	}
	first := rs.known == nil
	rs.known, rs.sync = rs.sync.known, nil
	rs.batch.RV = max(rs.batch.RV, rv)
	if first && rs.start.Latest != 0 && rs.start.Latest >= rv {
		// Started from the record, no gap: the watch resumed where the
		// record ends brings what happened meanwhile, late.
		since := rs.start.Alive
		if since.IsZero() {
			since = time.UnixMilli(0).UTC() // known current at no time: any time before now
		}
		rs.late = newLateness(since, now)
	}
	return nil
}

// add appends a revision of obj (nil for a deletion found by a list:
// the store writes its last recorded state); old is the version before
// it when known, which tells who made the change (Manager). An Initial
// revision claims no manager: no change of it was seen.
func (rs *recording) add(k store.Key, rv uint64, op Op, obj, old *object.Object, at time.Time) {
	if at.IsZero() {
		at = time.Now()
	}
	rev := Revision{Namespace: k.Namespace, Name: k.Name, RV: rv, Time: at, Op: op}
	if obj != nil {
		rev.Object = rs.unpack(obj)
		var prev []byte
		if old != nil {
			prev = rs.unpack(old)
		}
		if op != Initial {
			// Before a Secret's values are hashed: the fields that changed
			// may decide, read alike in both versions.
			rev.Manager = Manager(rev.Object, prev)
		}
		rs.dateLate(&rev, prev)
		if rs.secrets {
			rev.Object = HashSecretData(rev.Object)
			if prev != nil {
				prev = HashSecretData(prev)
			}
		}
		rev.Cells = obj.Cells
		rev.Before = prev // the revision before, as recorded when the store says so
	}
	rs.batch.Revisions = append(rs.batch.Revisions, rev)
}

// unpack appends obj's JSON to buf and returns it.
func (rs *recording) unpack(obj *object.Object) []byte {
	start := len(rs.buf)
	rs.buf = obj.AppendJSON(rs.buf)
	return rs.buf[start:len(rs.buf):len(rs.buf)]
}

// maxKeptBuf and maxKeptRevisions bound what a recording keeps between
// batches: a batch of large objects (a resync of CRDs) or of a whole
// state's deletions leaves no such buffer behind.
const (
	maxKeptBuf       = 16 << 20
	maxKeptRevisions = 4 * maxBatch
)

// written empties the batch once it is written, keeping its memory.
func (rs *recording) written() {
	clear(rs.batch.Revisions)
	rs.batch = Batch{Revisions: rs.batch.Revisions[:0]}
	rs.buf = rs.buf[:0]
	if cap(rs.buf) > maxKeptBuf {
		rs.buf = nil
	}
	if cap(rs.batch.Revisions) > maxKeptRevisions {
		rs.batch.Revisions = nil
	}
}

// advance moves the resourceVersion the batch completes the record to
// (Batch.RV) to a live change's: every change up to it is then in the
// batch or written. The changes of a whole state and of a relist do not
// move it (synced does, at a state's end): until the last of them is
// written, the record is complete only up to where it was, and a daemon
// restarted from it resumes from there (a partial relist read as the state
// at its resourceVersion would miss what its later changes say).
func (rs *recording) advance(c store.Change[*object.Object]) {
	if c.Relist == "" {
		rs.batch.RV = max(rs.batch.RV, parseRV(c.ResourceVersion))
	}
}

// flush writes the batch.
func (rs *recording) flush(ctx context.Context) error {
	if len(rs.batch.Revisions) == 0 && rs.batch.RV == 0 && rs.batch.Alive.IsZero() {
		return nil
	}
	if cols := rs.src.Columns(); cols != nil {
		if b, err := json.Marshal(cols); err == nil && string(b) != rs.columns {
			rs.batch.Columns, rs.columns = b, string(b)
		}
	}
	err := rs.retry(ctx, func() error { return rs.r.store.Write(ctx, rs.res, rs.batch) })
	if err == nil {
		rs.r.opts.OnWrite(rs.res, rs.batch.RV, len(rs.batch.Revisions))
		rs.written()
	}
	return err
}

// retry runs f until it succeeds or ctx ends, telling OnError of each
// failure and of the success after one, backing off from 1 s to 30 s.
func (rs *recording) retry(ctx context.Context, f func() error) error {
	delay := time.Second
	failed := false
	for {
		err := f()
		if err == nil {
			if failed {
				rs.r.opts.OnError(rs.res, nil)
			}
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		failed = true
		rs.r.opts.OnError(rs.res, err)
		if err := sleep(ctx, delay); err != nil {
			return err
		}
		delay = min(2*delay, 30*time.Second)
	}
}

// finish writes what is queued when the recorder stops, and that the
// record is complete to the store's resourceVersion, so that a restart
// marks a gap only from there.
func (rs *recording) finish(sub *store.Subscription[*object.Object]) error {
	if rs.known == nil || rs.sync != nil {
		return nil // nothing synced to finish
	}
	rv := parseRV(rs.src.ResourceVersion())
	for {
		c, ok, err := sub.TryNext()
		if err != nil || !ok {
			break
		}
		if c.Type == store.Resync || rs.take(context.Background(), c) != nil {
			return nil // the state is not whole: leave the record as it was
		}
	}
	if rs.sync != nil {
		return nil
	}
	rs.batch.RV = max(rs.batch.RV, rv)
	rs.alive()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := rs.r.store.Write(ctx, rs.res, rs.batch); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		rs.r.opts.OnError(rs.res, err)
	}
	return nil
}
