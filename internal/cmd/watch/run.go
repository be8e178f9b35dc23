package watch

import (
	"context"
	"sync"

	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/cli"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/flatten"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/output"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// Run watches every kind until ctx ends, --timeout passes, --max-events
// events are printed, or every kind has failed. It fails when --timeout
// passed before some kind was ever listed (see notListed).
func (o *WatchOptions) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if o.Timeout > 0 {
		ctx, cancel = context.WithTimeoutCause(ctx, o.Timeout, errWatchTimeout)
		defer cancel()
	}
	printer, err := output.New(o.Out, o.printOpts)
	if err != nil {
		return err
	}
	output.StopOnClosedOutput(ctx, o.Out, cancel)
	if o.contexts != nil {
		return o.runContexts(ctx, cancel, printer, flatten.New(flatten.Options{Events: o.events, WatchOnly: o.WatchOnly, MaxEvents: o.MaxEvents}))
	}
	return o.runOne(ctx, cancel, printer)
}

// runOne is Run in one context: the history replayed first (--since),
// then every kind's reflector into one stream, printed.
func (o *WatchOptions) runOne(ctx context.Context, cancel context.CancelFunc, printer output.Printer) error {
	report := cli.NewReporter(o.ErrOut, o.progress)
	opts := o.StreamOptions()
	replayed, closeHistory, err := o.replay(ctx)
	if err != nil {
		return err
	}
	defer closeHistory()
	handles, release, err := o.Acquire(reflector.SetOptions{Watch: &opts, Hooks: report.Hooks(true), Seed: replayed.Seed()}, o.read())
	if err != nil {
		return err
	}
	defer release()

	// A reflector per kind writes its store; one goroutine reads every
	// subscription and prints (flatten.Stream).
	stream := flatten.New(flatten.Options{Events: o.events, WatchOnly: o.WatchOnly, MaxEvents: o.MaxEvents})
	var wg sync.WaitGroup
	failed := &failures{of: len(handles), cancel: cancel}
	for _, h := range handles {
		// Ordered: a printed stream shows every change, in the order
		// applied, as kubectl's get -w does.
		stream.Add(cli.KindOf(h.Resource()), h, h.Subscribe(ctx, store.SubscribeOptions{Mode: store.Ordered, Wake: stream.Wake()}))
	}
	if replayed != nil { // handles follow o.Feeds
		for i, src := range o.Feeds {
			stream.Replay(i, replayed.Seam(src.Resource, o.Scope(src, o.read())))
		}
	}
	for i, h := range handles { // every kind added: End may be called from now on
		wg.Go(func() { o.awaitFailure(ctx, i, h, report, stream, failed) })
		// A replay (--since) shows what became of the names; whether
		// they exist now is no news.
		if src, names := o.Feeds[i], o.NamesOf(o.Feeds[i]); len(names) > 0 && o.Since == "" { // handles follow o.Feeds
			wg.Go(func() { noteMissing(ctx, h, names, src.Namespace, report) })
		}
	}
	perr := stream.Print(ctx, printer)
	cancel()
	wg.Wait()
	if perr != nil {
		return perr
	}
	if failed.any() {
		return cli.ErrReported
	}
	return notListed(ctx, o.Timeout, stream.Unlisted())
}

// read is what watch reads of each object: a table's rows are cells and
// metadata (watch never sorts), and a name is metadata. --diff reads whole
// objects, with the cells that sum up a new or deleted one on its line.
func (o *WatchOptions) read() kube.Shape {
	table := !o.Diff && o.PrintFlags.Table()
	return kube.Shape{
		Table: (table || o.Diff) && !o.NoServerPrint, MetadataOnly: table || !o.Diff && o.PrintFlags.Format() == "name",
		Prune: object.Prune{ManagedFields: !o.PrintFlags.JSONYamlPrintFlags.ShowManagedFields},
	}
}

// failures counts the kinds that failed for good, and cancels the watch
// once every one of them has.
type failures struct {
	mu     sync.Mutex
	n, of  int
	cancel context.CancelFunc
}

func (f *failures) add() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n++; f.n == f.of {
		f.cancel()
	}
}

func (f *failures) any() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n > 0
}

// awaitFailure waits for the i-th kind's reflector, h, to fail for good,
// or ctx to end: a failure is reported, counted, and ends the kind in
// stream.
func (o *WatchOptions) awaitFailure(ctx context.Context, i int, h *reflector.Handle, report *cli.Reporter, stream *flatten.Stream, failed *failures) {
	select {
	case <-h.Done():
	case <-ctx.Done():
		return
	}
	if err := h.Err(); err != nil {
		o.reportFailure(report, err)
		stream.End(i)
		failed.add()
	}
}

// reportFailure reports a kind that failed for good: as `error: ...`, or,
// for get -w, in kubectl get's words (output.KubectlError).
func (o *WatchOptions) reportFailure(report *cli.Reporter, err error) {
	if o.KubectlErrors {
		report.Line("", "%s", output.KubectlError(err, true))
		return
	}
	report.Errorf("%v", err)
}
