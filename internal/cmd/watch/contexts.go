package watch

import (
	"context"
	"errors"
	"io"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/cli"
	"github.com/kubectl-reflect/kubectl-reflect/internal/contexts"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/flatten"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/output"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// Backoff of a context that cannot be read yet (its cluster away, its
// credentials refused): it is tried again, doubling, up to the maximum.
const (
	contextRetryMin = time.Second
	contextRetryMax = 30 * time.Second
)

// severalKinds says whether arguments name several kinds (or a category,
// or manifests), as far as they tell without a server: each context
// resolves them itself, and the table is chosen before.
func severalKinds(t *cli.Target) bool {
	if t.FromFiles() {
		return true
	}
	parsed, err := kube.ParseArgs(t.Args, kube.ArgsOptions{Selector: t.Selects()})
	if err != nil {
		return false
	}
	kinds := map[string]bool{}
	for _, a := range parsed {
		kinds[a.Kind] = true
		if a.Kind == "all" {
			return true
		}
	}
	return len(kinds) > 1
}

// forContext is the options of context name alone: this command's flags,
// its stderr errOut.
func (o *WatchOptions) forContext(name string, errOut io.Writer) *WatchOptions {
	sub := *o
	sub.IOStreams = genericiooptions.IOStreams{In: o.In, Out: o.Out, ErrOut: errOut}
	sub.Target = o.Target.ForContext(name, sub.IOStreams)
	sub.contexts = nil
	return &sub
}

// runContexts watches every context at once, each on its own, into one
// stream: a context whose cluster cannot be reached, or whose credentials
// are refused, says so once (on lines after "context NAME: ") and is tried
// again until it answers, then joins with its objects as they are; one
// that lacks a kind asked for fails alone. It ends as Run does, and fails
// when a context or a kind failed for good.
func (o *WatchOptions) runContexts(ctx context.Context, cancel context.CancelFunc, printer output.Printer, stream *flatten.Stream) error {
	set := contexts.New(o.contexts, o.ErrOut)
	set.OnAllFailed = cancel // every context failed: the watch ends
	running := set.Go(ctx, func(ctx context.Context, i int, name string) error {
		if !o.forContext(name, set.ErrOut(i)).watchContext(ctx, name, o.Args, stream) {
			return contexts.ErrReported
		}
		return nil
	})
	perr := stream.Print(ctx, printer)
	cancel() // printing ended (--max-events, a closed output): so do the contexts
	running.Wait()
	if perr != nil {
		return perr
	}
	if running.Failed() {
		return cli.ErrReported
	}
	return notListed(ctx, o.Timeout, stream.Unlisted())
}

// watchContext resolves the arguments in its context (again and again
// while the cluster cannot be reached), adds its kinds to stream and keeps
// its reflectors until ctx ends. It says whether every kind it added
// went on without failing for good.
func (o *WatchOptions) watchContext(ctx context.Context, name string, args []string, stream *flatten.Stream) bool {
	report := cli.NewReporter(o.ErrOut, false)
	if !o.resolveContext(ctx, report, args) {
		return false
	}
	opts := o.StreamOptions()
	handles, release, err := o.Acquire(reflector.SetOptions{Watch: &opts, Hooks: report.Hooks(true)}, o.read())
	if err != nil {
		report.Errorf("%v", err)
		return false
	}
	defer release()
	var wg sync.WaitGroup
	kindFailed := &failures{of: len(handles), cancel: func() {}}
	for i, h := range handles {
		k := stream.AddIn(name, cli.KindOf(h.Resource()), h, h.Subscribe(ctx, store.SubscribeOptions{Mode: store.Ordered, Wake: stream.Wake()}))
		wg.Go(func() { o.awaitFailure(ctx, k, h, report, stream, kindFailed) })
		if src, names := o.Feeds[i], o.NamesOf(o.Feeds[i]); len(names) > 0 { // handles follow o.Feeds
			wg.Go(func() { noteMissing(ctx, h, names, src.Namespace, report) })
		}
	}
	<-ctx.Done()
	wg.Wait()
	return !kindFailed.any()
}

// resolveContext reads the arguments in o's context until it can: a kind
// the server lacks fails the context for good; anything else (no answer,
// refused credentials) is a warning, once per cause, and a try again.
func (o *WatchOptions) resolveContext(ctx context.Context, report *cli.Reporter, args []string) bool {
	last := ""
	for wait := contextRetryMin; ; wait = min(2*wait, contextRetryMax) {
		err := o.Complete(args)
		if err == nil {
			err = o.resolve() // the flags were checked once, for every context
		}
		switch {
		case err == nil:
			if last != "" {
				report.Line("", "reachable again")
			}
			return true
		case isNoMatch(err):
			report.Errorf("%v", err)
			return false
		case err.Error() != last:
			last = err.Error()
			report.Warnf("%v; trying again", err)
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return true // ended before it could be read: nothing failed
		}
	}
}

// isNoMatch says whether err is a kind the server does not have.
func isNoMatch(err error) bool {
	return errors.Is(err, kube.ErrUnknownKind) || slices.ContainsFunc(cli.Joined(err), meta.IsNoMatchError)
}
