package recording

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
)

// Config is serve --record: the daemon writes every change of its kinds
// to a history (pkg/history).
type Config struct {
	// DB is the history's file, or a PostgreSQL database's postgres:// URL
	// (history.Open); "" is DefaultPath of the daemon's identity.
	DB string
	// Retention is how long revisions are kept (more than 0).
	Retention time.Duration
	// SecretData records Secrets' data in full, not hashed.
	SecretData bool
	// AllKinds records every kind the API server lists and watches that
	// the user may, and those it serves later (serve --record with no
	// KIND: All), beside the kinds given.
	AllKinds bool
	// MaxSize, when more than 0, is how many bytes the history's file may
	// take: its oldest part is pruned beyond it (history.SQLite.Shrink; a
	// PostgreSQL history has no file of its own to bound).
	MaxSize int64
}

// pruneEvery is how often a recording daemon drops what its retention
// no longer keeps.
const pruneEvery = 10 * time.Minute

// Recording is a daemon's recorders and their store. Its methods do
// nothing on a nil Recording (a daemon that does not record).
type Recording struct {
	store     history.Record
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
	// cfg is the daemon's Config.
	cfg Config

	// recorder writes the changes (begin makes it).
	recorder *history.Recorder
	due      *dueCheckpoints

	mu sync.Mutex // guards what follows, and writes to errOut
	// resources are the names of the resources recorded, checkpointed
	// (history.Record.Checkpoint) after each prune, when due, and at the
	// end.
	resources   []string
	gates       map[schema.GroupResource]chan struct{} // see gate
	firstWrites map[string]chan struct{}               // see add
	seeded      map[kube.Resource]string
	announced   bool
	begins      *history.Beginning // where the record began at the last prune (moved)
}

// Options is how a daemon records.
type Options struct {
	Config
	// Identity names the daemon's default history (DefaultPath), for a
	// Config.DB of "".
	Identity string
	// ErrOut is written the recording's lines: where it records, what it
	// restored, warnings.
	ErrOut io.Writer
}

// Open opens the history a daemon records to, before its reflectors
// start: they start from it (Seeder). A history that cannot be opened
// (damaged, another program's file, no room) is said in one line on
// ErrOut and the daemon serves without recording: nil.
func Open(ctx context.Context, o Options) *Recording {
	path := o.DB
	if path == "" {
		var err error
		if path, err = DefaultPath(o.Identity); err != nil {
			fmt.Fprintf(o.ErrOut, "warning: not recording: %v\n", err)
			return nil
		}
	}
	s, err := history.Open(ctx, path, history.OpenOptions{})
	if err != nil {
		fmt.Fprintf(o.ErrOut, "warning: not recording: %v\n", err)
		return nil
	}
	r := &Recording{store: s, errOut: o.ErrOut, subscribed: make(chan struct{}), checked: make(chan struct{}), cfg: o.Config,
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

// Begin waits for the history's check and says where the daemon
// records; false when it failed (said in one line; the history is closed
// and the daemon serves without recording). Add then records each
// resource, and Started lets the reflectors start from the history.
func (r *Recording) Begin() bool {
	if r == nil {
		return false
	}
	<-r.checked
	if r.checkErr != nil {
		fmt.Fprintf(r.errOut, "warning: not recording: %v\n", r.checkErr)
		r.failed = true
		r.Close()
		return false
	}
	what := ""
	if r.cfg.AllKinds {
		what = "every kind the user may list and watch "
	}
	bound := ""
	if r.cfg.MaxSize > 0 {
		bound = ", at most " + quantity(r.cfg.MaxSize)
	}
	fmt.Fprintf(r.errOut, "Recording %sto %s (kept %s%s)\n", what, r.store.Location(), r.cfg.Retention, bound)
	r.recorder = history.NewRecorder(r.store, history.RecorderOptions{SecretData: r.cfg.SecretData, OnError: r.recordErrors(), OnWrite: r.wrote})
	return true
}

// Location is where the daemon records (a file, or a PostgreSQL URL
// without its password), "" when it does not.
func (r *Recording) Location() string {
	if r == nil || r.failed {
		return ""
	}
	return r.store.Location()
}

// wrote is history.RecorderOptions.OnWrite: it counts the revisions
// towards a checkpoint (dueCheckpoints.wrote), and tells add's caller when
// res's first state is written (a batch complete to a resourceVersion).
func (r *Recording) wrote(res string, rv uint64, n int) {
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

// Add records h's changes until ctx ends or stop is called; stop returns
// once the recorder has written what it holds (a kind recorded again
// later gets a recorder of its own: one writer per resource at a time).
// written is closed once the recorder has written the first state of
// h's store.
func (r *Recording) Add(ctx context.Context, h *reflector.Handle) (stop func(), written <-chan struct{}) {
	res := history.ResourceName(h.Resource())
	if c, ok := r.store.(checkpointed); ok {
		if has, err := c.Checkpointed(ctx, res); err == nil && has {
			r.due.hasOne(res)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	run := r.recorder.Start(ctx, h)
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

// Started lets the reflectors start from the history (Seeder): every
// recorder of the resources given has subscribed. Then, unless Begin
// failed, the pruner runs until ctx ends.
func (r *Recording) Started(ctx context.Context) {
	if r == nil {
		return
	}
	close(r.subscribed)
	if !r.failed {
		r.wg.Go(func() { r.prune(ctx) })
	}
}

// gate holds the reflector of res back from the history (seed) until
// the returned open is called: a recorder that subscribes to a reflector
// started after start-up (a kind recorded later) must see the state the
// history gives it, not a later one.
func (r *Recording) gate(res schema.GroupResource) (open func()) {
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
func (r *Recording) recordErrors() func(string, error) {
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

// stopCheckpointing bounds the checkpoint a stopping daemon writes.
const stopCheckpointing = 30 * time.Second

// Stop waits for the recorders to write what they hold (once the
// context given to Add ended), checkpoints what they wrote, and closes
// the history.
func (r *Recording) Stop() {
	if r == nil {
		return
	}
	r.wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), stopCheckpointing)
	defer cancel()
	if err := r.checkpoint(ctx); err != nil {
		r.say("warning: history: %v\n", err)
	}
	r.Close()
}

// Close closes the history (once): a daemon that fails before Stop.
func (r *Recording) Close() {
	if r != nil {
		r.closeOnce.Do(func() {
			if err := r.store.Close(); err != nil {
				r.say("warning: history: %v\n", err)
			}
		})
	}
}
