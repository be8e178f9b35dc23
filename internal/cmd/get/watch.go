package get

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/cli"
	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/watch"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/output"
)

// getWatchFlags are kubectl get's watch flags. With -w or --watch-only,
// `get` is `watch`: the same stream, printer and flags, with kubectl get -w's
// meaning (the objects that exist, then every change; --watch-only, changes
// only), every kind given, not only one.
type getWatchFlags struct {
	Watch             bool
	WatchOnly         bool
	OutputWatchEvents bool
}

func (f *getWatchFlags) addFlags(c *cobra.Command) {
	c.Flags().BoolVarP(&f.Watch, "watch", "w", false, "After listing/getting the requested objects, watch for changes, as kubectl reflect watch does.")
	c.Flags().BoolVar(&f.WatchOnly, "watch-only", false, "Watch for changes to the requested objects, without listing/getting first.")
	output.AddWatchEventsFlag(c, &f.OutputWatchEvents)
}

var errWatchEventsWithoutWatch = errors.New("--output-watch-events option can only be used with --watch or --watch-only")

// getRunE runs `get`, or `watch` under -w or --watch-only, or a GET of
// the --raw path.
func getRunE(o *GetOptions) func(*cobra.Command, []string) error {
	return func(c *cobra.Command, args []string) error {
		if o.At != "" && (o.raw.Path != "" || o.Watch || o.WatchOnly) {
			return o.validateAt() // the one line saying which flag --at refuses
		}
		if o.raw.Path != "" {
			if err := o.raw.validate(o, args); err != nil {
				return err
			}
			return o.raw.run(c.Context(), o)
		}
		if !o.Watch && !o.WatchOnly {
			if o.OutputWatchEvents {
				return errWatchEventsWithoutWatch
			}
			return cli.RunE(o)(c, args)
		}
		return cli.RunE(o.asWatch())(c, args)
	}
}

// asWatch is the watch that `get -w` runs: get's target and print flags,
// every event type, no limit.
func (o *GetOptions) asWatch() *watch.WatchOptions {
	return &watch.WatchOptions{
		Target:        o.Target,
		IOStreams:     o.IOStreams,
		PrintFlags:    output.StreamFlags{PrintFlags: o.PrintFlags, OutputWatchEvents: o.OutputWatchEvents},
		WatchOnly:     o.WatchOnly,
		NoServerPrint: !o.ServerPrint,
		KubectlErrors: true,
		Events:        []string{"applied", "deleted"},
	}
}
