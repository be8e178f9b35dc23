package diff

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/cli"
	"github.com/kubectl-reflect/kubectl-reflect/internal/moment"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/output"
)

// side is one state diff compares: a context's objects now (moment nil)
// or at a moment of its history.
type side struct {
	src    *source
	moment *moment.Moment
	label  string
	objs   []*object.Object
	err    error
}

// Run reads every state, then prints what differs: exit 1 (cli.Exit) when
// something does.
func (o *DiffOptions) Run(ctx context.Context) error {
	sides := o.sides()
	defer o.closeHistories()
	for _, sd := range sides {
		if sd.moment != nil {
			if err := sd.src.openHistory(ctx, o.DB); err != nil {
				return sd.src.wrap(err)
			}
		}
	}
	var wg sync.WaitGroup
	for _, sd := range sides {
		wg.Go(func() { sd.read(ctx) })
	}
	wg.Wait()
	if ctx.Err() != nil {
		return cli.ErrInterrupted
	}
	var errs []error
	for _, sd := range sides {
		if sd.err != nil && !slices.ContainsFunc(errs, func(e error) bool { return e.Error() == sd.err.Error() }) {
			errs = append(errs, sd.err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if err := o.found(ctx, sides); err != nil {
		return err
	}
	compared := make([]output.Side, len(sides))
	for i, sd := range sides {
		compared[i] = output.Side{Label: sd.label, Objects: sd.objs}
	}
	opts := output.CompareOptions{Ignore: o.ignore, IncludeStatus: o.IncludeStatus, ByNamespace: o.AllNamespaces, Color: output.IsTerminal(o.Out)}
	different, err := output.Compare(o.Out, *cli.KindOf(o.sources[0].wanted().Resource), compared, opts)
	switch {
	case err != nil:
		return err
	case different:
		return cli.Exit(exitDifferent)
	}
	return nil
}

// sides are the states compared: one context's two moments (the second
// now when one is given), or each context's state now or at the moment.
func (o *DiffOptions) sides() []*side {
	if o.contexts == nil {
		src := o.sources[0]
		first := &side{src: src, moment: &o.moments[0], label: momentLabel(o.moments[0])}
		second := &side{src: src, label: "now"}
		if len(o.moments) == 2 {
			second.moment, second.label = &o.moments[1], momentLabel(o.moments[1])
		}
		return []*side{first, second}
	}
	sides := make([]*side, len(o.sources))
	for i, src := range o.sources {
		sides[i] = &side{src: src, label: src.context}
		if len(o.moments) == 1 {
			sides[i].moment = &o.moments[0]
			sides[i].label += " at " + momentLabel(o.moments[0])
		}
	}
	return sides
}

// read reads sd's objects, or why it cannot, naming its context.
func (sd *side) read(ctx context.Context) {
	if sd.moment == nil {
		sd.objs, sd.err = sd.src.readNow(ctx)
	} else {
		sd.objs, sd.err = sd.src.readAt(ctx, *sd.moment)
	}
	if sd.err != nil && !errors.Is(sd.err, cli.ErrInterrupted) {
		sd.err = sd.src.wrap(sd.err)
	}
}

// found checks that each object named is in one of the states at least:
// one in none is an error (never recorded, when a history says so).
func (o *DiffOptions) found(ctx context.Context, sides []*side) error {
	tg := o.sources[0].wanted()
	var labels []string
	for _, sd := range sides {
		labels = append(labels, sd.label)
	}
	for _, name := range tg.Names {
		if slices.ContainsFunc(sides, func(sd *side) bool {
			return slices.ContainsFunc(sd.objs, func(obj *object.Object) bool { return obj.Name == name })
		}) {
			continue
		}
		gr := tg.Resource.GVR.GroupResource()
		for _, sd := range sides {
			if sd.moment == nil {
				continue
			}
			if ok, err := sd.src.recorded(ctx, name); err != nil || !ok {
				if err != nil {
					return sd.src.wrap(err)
				}
				return sd.src.wrap(fmt.Errorf("%s %q was never recorded (the history %s holds no revision of it)", gr, name, sd.src.history.Location()))
			}
		}
		return fmt.Errorf("%s %q not found (%s)", gr, name, strings.Join(labels, ", "))
	}
	return nil
}

// closeHistories closes the histories the sources opened.
func (o *DiffOptions) closeHistories() {
	for _, s := range o.sources {
		if s.history != nil {
			s.history.Close()
		}
	}
}

// momentLabel names a moment in the output: its time, or its
// resourceVersion.
func momentLabel(m moment.Moment) string {
	if m.RV != 0 {
		return "resourceVersion " + strconv.FormatUint(m.RV, 10)
	}
	return m.When.UTC().Format(time.RFC3339)
}
