package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-reflect/kubectl-reflect/internal/contexts"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/daemon"
)

// completeContexts is Complete for several contexts: each context reads
// the arguments itself (its own kubeconfig namespace and kinds), each its
// errors after "context NAME: ".
func (o *ServeOptions) completeContexts(args []string) error {
	if o.Controllers != "" {
		return errors.New("--controllers runs in one context: give --context one name")
	}
	if slices.Contains(o.contexts, daemon.MergedContext) {
		return fmt.Errorf("context %q: the daemon's kubeconfig names the merged view so: rename it to serve it beside others", daemon.MergedContext)
	}
	set := contexts.New(o.contexts, o.ErrOut)
	return set.Each(func(i int, name string) error {
		sub := o.forContext(name, set.ErrOut(i))
		if err := sub.Complete(args); err != nil {
			return err
		}
		o.members = append(o.members, sub)
		return nil
	})
}

// forContext is the options of context name: this command's flags, its
// stderr errOut; its daemon listens at a free port (--port is the merged
// view's).
func (o *ServeOptions) forContext(name string, errOut io.Writer) *ServeOptions {
	streams := genericiooptions.IOStreams{In: o.In, Out: o.Out, ErrOut: errOut}
	sub := *o
	sub.Target = o.Target.ForContext(name, streams)
	sub.IOStreams, sub.contexts, sub.members, sub.Port = streams, nil, nil, 0
	return &sub
}

// validateContexts resolves every context's kinds: one a cluster lacks
// fails the command, naming its context.
func (o *ServeOptions) validateContexts() error {
	return contexts.Each(o.contexts, func(i int, _ string) error { return o.members[i].Validate() })
}

// runContexts runs a daemon per context and their merged view
// (daemon.RunContexts).
func (o *ServeOptions) runContexts(ctx context.Context) error {
	var members []daemon.Member
	for i, sub := range o.members {
		members = append(members, daemon.Member{Name: o.contexts[i], Config: sub.config()})
	}
	opts := daemon.ContextsOptions{Port: o.Port, ErrOut: o.ErrOut}
	if o.PrintKubeconfig {
		opts.Out = o.Out
	}
	return daemon.RunContexts(ctx, members, opts)
}
