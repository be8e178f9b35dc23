package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
)

// RecordConfig is serve --record: the daemon writes every change of its
// kinds to a history (pkg/history).
type RecordConfig struct {
	// DB is the history's file, or a PostgreSQL database's postgres:// URL
	// (history.Open); "" is HistoryPath of the daemon's identity.
	DB string
	// Retention is how long revisions are kept (more than 0).
	Retention time.Duration
	// SecretData records Secrets' data in full, not hashed.
	SecretData bool
	// AllKinds records every kind the API server lists and watches that
	// the user may, and those it serves later (serve --record with no
	// KIND: recordall.go), beside Config.Resources.
	AllKinds bool
	// MaxSize, when more than 0, is how many bytes the history's file may
	// take: its oldest part is pruned beyond it (history.SQLite.Shrink; a
	// PostgreSQL history has no file of its own to bound).
	MaxSize int64
}

// pruneEvery is how often a recording daemon drops what its retention
// no longer keeps.
const pruneEvery = 10 * time.Minute

// HistoryPath is the default history of the identity of cfg: one file
// per cluster and user, under $XDG_STATE_HOME (else ~/.local/state).
func HistoryPath(cfg *rest.Config) (string, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("finding a directory for the history: %w", err)
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "kubectl-reflect", "history", Identity(cfg)+".db"), nil
}

// recording is a daemon's recorders and their store.
type recording struct {
	store     history.Store
	errOut    io.Writer
	wg        sync.WaitGroup
	closeOnce sync.Once
	// subscribed closes once every recorder has subscribed to its store
	// (start): a reflector seeded before would deliver changes after its
	// state that a late recorder would see folded into a later state, and
	// record as a gap.
	subscribed chan struct{}
	// checked closes when the file's check (quick_check, which reads it
	// whole) is done, checkErr its outcome: it runs beside the reflectors'
	// first reads of the history, and neither a seed nor a recorder uses a
	// file that fails it (failed).
	checked  chan struct{}
	checkErr error
	failed   bool
	// secretData: Secrets' values are recorded in full (RecordConfig).
	secretData bool
	// cfg is the daemon's RecordConfig, once begun.
	cfg RecordConfig

	// recorder writes the changes (begin makes it).
	recorder *history.Recorder
	due      *dueCheckpoints

	mu sync.Mutex // guards what follows, and writes to errOut
	// resources are the names of the resources recorded, checkpointed
	// (history.Store.Checkpoint) after each prune, when due, and at the
	// end.
	resources   []string
	gates       map[schema.GroupResource]chan struct{} // see gate
	firstWrites map[string]chan struct{}               // see add
	seeded      map[kube.Resource]string
	announced   bool
	begins      *history.Beginning // where the record began at the last prune (moved)
}

// openRecording opens the history a daemon records to, before its
// reflectors start: they start from it (seed). A history that cannot be
// opened (damaged, another program's file, no room) is said in one line on
// ErrOut and the daemon serves without recording: nil.
func (d *daemonRun) openRecording(ctx context.Context) *recording {
	rc := d.cfg.Record
	if rc == nil {
		return nil
	}
	path := rc.DB
	if path == "" {
		var err error
		if path, err = HistoryPath(d.cfg.REST); err != nil {
			fmt.Fprintf(d.cfg.ErrOut, "warning: not recording: %v\n", err)
			return nil
		}
	}
	s, err := history.Open(ctx, path, history.OpenOptions{})
	if err != nil {
		fmt.Fprintf(d.cfg.ErrOut, "warning: not recording: %v\n", err)
		return nil
	}
	r := &recording{store: s, errOut: d.cfg.ErrOut, subscribed: make(chan struct{}), checked: make(chan struct{}), secretData: rc.SecretData,
		due: newDueCheckpoints()}
	go func() {
		if c, ok := s.(checker); ok {
			r.checkErr = c.Check(ctx)
		}
		close(r.checked)
	}()
	return r
}

// checker is a history that can read itself whole for damage before it is
// written to (an SQLite file: history.SQLite.Check; a database server
// checks its own).
type checker interface {
	Check(ctx context.Context) error
}

// checkpointed is a history that says whether a resource's record has a
// checkpoint (history's SQL stores), which makes none due early.
type checkpointed interface {
	Checkpointed(ctx context.Context, res string) (bool, error)
}

// shrinker is a history that can keep itself within a size
// (history.SQLite.Shrink).
type shrinker interface {
	Shrink(ctx context.Context, limit int64) (int64, error)
}

// begin waits for the history's check and says where the daemon
// records; false when it failed (said in one line; the history is closed
// and the daemon serves without recording). add then records each
// resource, and started lets the reflectors start from the history.
func (r *recording) begin(d *daemonRun) bool {
	if r == nil {
		return false
	}
	<-r.checked
	if r.checkErr != nil {
		fmt.Fprintf(d.cfg.ErrOut, "warning: not recording: %v\n", r.checkErr)
		r.failed = true
		r.close()
		return false
	}
	rc := d.cfg.Record
	r.cfg = *rc
	d.historyPath = r.store.Location()
	what := ""
	if rc.AllKinds {
		what = "every kind the user may list and watch "
	}
	bound := ""
	if rc.MaxSize > 0 {
		bound = ", at most " + quantity(rc.MaxSize)
	}
	fmt.Fprintf(d.cfg.ErrOut, "Recording %sto %s (kept %s%s)\n", what, d.historyPath, rc.Retention, bound)
	r.recorder = history.NewRecorder(r.store, history.RecorderOptions{SecretData: rc.SecretData, OnError: r.recordErrors(), OnWrite: r.wrote})
	return true
}

// wrote is history.RecorderOptions.OnWrite: it counts the revisions
// towards a checkpoint (dueCheckpoints.wrote), and tells add's caller when
// res's first state is written (a batch complete to a resourceVersion).
func (r *recording) wrote(res string, rv uint64, n int) {
	r.due.wrote(res, rv, n)
	if rv == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if ch := r.firstWrites[res]; ch != nil {
		close(ch)
		delete(r.firstWrites, res)
	}
}

// add records l's changes until ctx ends or stop is called; stop returns
// once the recorder has written what it holds (a kind recorded again
// later gets a recorder of its own: one writer per resource at a time).
// written is closed once the recorder has written the first state of
// l's store.
func (r *recording) add(ctx context.Context, l *reflector.Lease) (stop func(), written <-chan struct{}) {
	res := history.ResourceName(l.Resource())
	if c, ok := r.store.(checkpointed); ok {
		if has, err := c.Checkpointed(ctx, res); err == nil && has {
			r.due.hasOne(res)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	run := r.recorder.Start(ctx, l)
	done := make(chan struct{})
	r.wg.Go(func() {
		defer close(done)
		_ = run()
	})
	first := make(chan struct{})
	r.mu.Lock()
	r.resources = append(r.resources, res)
	if r.firstWrites == nil {
		r.firstWrites = map[string]chan struct{}{}
	}
	r.firstWrites[res] = first
	r.mu.Unlock()
	return func() {
		cancel()
		<-done
		r.mu.Lock()
		defer r.mu.Unlock()
		if i := slices.Index(r.resources, res); i >= 0 {
			r.resources = slices.Delete(r.resources, i, i+1)
		}
		if r.firstWrites[res] == first {
			delete(r.firstWrites, res)
		}
	}, first
}

// started lets the reflectors start from the history (seed): every
// recorder of the resources given has subscribed. Then the pruner runs
// until ctx ends.
func (r *recording) started(ctx context.Context, rc RecordConfig) {
	if r == nil {
		return
	}
	close(r.subscribed)
	if !r.failed {
		r.wg.Go(func() { r.prune(ctx, rc) })
	}
}

// gate holds the reflector of res back from the history (seed) until
// the returned open is called: a recorder that subscribes to a reflector
// started after start-up (a kind recorded later) must see the state the
// history gives it, not a later one.
func (r *recording) gate(res schema.GroupResource) (open func()) {
	ch := make(chan struct{})
	r.mu.Lock()
	if r.gates == nil {
		r.gates = map[schema.GroupResource]chan struct{}{}
	}
	r.gates[res] = ch
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		if r.gates[res] == ch {
			delete(r.gates, res)
		}
		r.mu.Unlock()
		close(ch)
	}
}

// recordErrors says a write that failed once per cause, and when writing
// works again.
func (r *recording) recordErrors() func(string, error) {
	last := map[string]string{} // guarded by r.mu, which say takes
	return func(res string, err error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		switch {
		case err == nil:
			delete(last, res)
			fmt.Fprintf(r.errOut, "history: writing %s again\n", res)
		case last[res] != err.Error():
			last[res] = err.Error()
			fmt.Fprintf(r.errOut, "warning: history: %v (retrying)\n", err)
		}
	}
}

// prune drops what retention no longer keeps, and the oldest part beyond
// MaxSize, now and every pruneEvery.
func (r *recording) prune(ctx context.Context, rc RecordConfig) {
	t := time.NewTicker(pruneEvery)
	defer t.Stop()
	over := false // said that the state kept is over MaxSize
	first := true
	r.moved(ctx)
	for {
		err := r.store.Prune(ctx, time.Now().Add(-rc.Retention), history.Cause{Retention: rc.Retention})
		if sh, ok := r.store.(shrinker); ok && err == nil && rc.MaxSize > 0 {
			var used int64
			used, err = sh.Shrink(ctx, rc.MaxSize)
			if err == nil && used > rc.MaxSize != over {
				over = !over
				if over {
					r.say("warning: history: what it keeps of the latest state takes %s, more than --record-max-size %s\n", quantity(used), quantity(rc.MaxSize))
				}
			}
		}
		if err == nil {
			r.moved(ctx)
		}
		if err == nil && !first { // at start, the reflectors read the history: no more reading beside them
			err = r.checkpoint(ctx)
		}
		first = false
		r.warn(ctx, err)
		if !r.awaitPrune(ctx, t) {
			return
		}
	}
}

// awaitPrune waits for the next prune, checkpointing meanwhile whenever
// one is due; false when ctx ended.
func (r *recording) awaitPrune(ctx context.Context, t *time.Ticker) bool {
	for {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
			return true
		case <-r.due.wake:
			r.warn(ctx, r.checkpoint(ctx))
		}
	}
}

// warn says a failure of the pruner's, unless the daemon stops.
func (r *recording) warn(ctx context.Context, err error) {
	if err != nil && ctx.Err() == nil {
		r.say("warning: history: %v\n", err)
	}
}

// say writes one line to the daemon's ErrOut.
func (r *recording) say(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(r.errOut, format, args...)
}

// quantity is a size in bytes as --record-max-size takes it (512Mi).
func quantity(n int64) string { return resource.NewQuantity(n, resource.BinarySI).String() }

// checkpoint keeps each resource's state where its record ends in one
// piece, for the next start (a warm restart reads it) and get --at.
func (r *recording) checkpoint(ctx context.Context) error {
	r.mu.Lock()
	resources := slices.Clone(r.resources)
	r.mu.Unlock()
	for _, res := range resources {
		if err := r.store.Checkpoint(ctx, res); err != nil && !errors.Is(err, history.ErrNotRecorded) {
			return err
		}
	}
	r.due.checkpointed()
	return nil
}

// stopCheckpointing bounds the checkpoint a stopping daemon writes.
const stopCheckpointing = 30 * time.Second

// stop waits for the recorders to write what they hold, checkpoints what
// they wrote, and closes the history.
func (r *recording) stop() {
	if r == nil {
		return
	}
	r.wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), stopCheckpointing)
	defer cancel()
	if err := r.checkpoint(ctx); err != nil {
		r.say("warning: history: %v\n", err)
	}
	r.close()
}

// close closes the history (once).
func (r *recording) close() {
	if r != nil {
		r.closeOnce.Do(func() {
			if err := r.store.Close(); err != nil {
				r.say("warning: history: %v\n", err)
			}
		})
	}
}

// HistoryOf is the history a query of cfg's identity reads: the one its
// running daemon records to (a file, or a PostgreSQL URL without its
// password), else the default file (HistoryPath).
func HistoryOf(cfg *rest.Config) (string, error) {
	if dir, err := dirPath(); err == nil {
		if info, err := Running(FilesOf(dir, Identity(cfg))); err == nil && info.History != "" {
			return info.History, nil
		}
	}
	return HistoryPath(cfg)
}

// OpenHistory opens for queries the history at path (a file or a
// postgres:// URL), or, when path is "", the one cfg's identity records to
// (HistoryOf): get --at, history and watch --since.
func OpenHistory(ctx context.Context, cfg *rest.Config, path string) (history.Store, error) {
	if path == "" {
		var err error
		if path, err = HistoryOf(cfg); err != nil {
			return nil, err
		}
	}
	return history.Open(ctx, path, history.OpenOptions{ReadOnly: true})
}
