package timeline

import (
	"context"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/timeline"
)

// runInteractive draws the timeline in the terminal.
func (o *TimelineOptions) runInteractive(ctx context.Context, srcs *opened, q timeline.Query) error {
	tl, err := timeline.Build(ctx, srcs.sources, q)
	if err != nil {
		return err
	}
	return plain{width: o.Width, contexts: len(srcs.sources) > 1}.print(o.Out, tl)
}
