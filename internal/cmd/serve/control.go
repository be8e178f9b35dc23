package serve

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/cli"
	"github.com/kubectl-reflect/kubectl-reflect/internal/contexts"
	"github.com/kubectl-reflect/kubectl-reflect/internal/statusview"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/daemon"
)

// ServeControlOptions are the flags of `serve status` and `serve stop`:
// the kubeconfig whose identity names the daemon.
type ServeControlOptions struct {
	configFlags *genericclioptions.ConfigFlags
	genericiooptions.IOStreams

	// Timeout bounds how long stop waits for the daemon to exit.
	Timeout time.Duration
	stop    bool
	files   daemon.Files
	// contexts, when --context names several, and the files of each.
	contexts     []string
	contextFiles []daemon.Files
}

// newCmdServeStatus is `kubectl reflect serve status`.
func newCmdServeStatus(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &ServeControlOptions{configFlags: flags, IOStreams: streams}
	return &cobra.Command{
		Use:   "status",
		Short: "Show what the daemon of the current cluster and user caches",
		Long: `Status prints the daemon's pid, address, start and kubeconfig, then a table
of its resources: OBJECTS, RESOURCEVERSION, WATCHERS (open watches), EVENTS
SENT and LAG, and one of its controllers (serve --controllers): READY and
RECONCILES. A daemon started with --record says where it records and what
(the kinds given, or every kind the user may list and watch, then those the
API server refused it), and its table has a column RECORDED (yes or no);
then where the record begins and why (recording began then, or older
revisions were pruned to stay under --record-max-size or after
--record-retention), what the file takes of its cap, and what each kind
wrote in the last hour: REVISIONS and BYTES.

LAG is how far behind the resource's watches are: the longest time a change
waited between its arrival from the API server and its event's delivery to a
client, among the events delivered in the last minute or two and those not
delivered yet (a client that stopped reading makes it grow until its watch is
cut). 0s when nothing was delivered lately.`,
		Args: cobra.NoArgs,
		RunE: cli.RunE(o),
	}
}

// newCmdServeStop is `kubectl reflect serve stop`.
func newCmdServeStop(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &ServeControlOptions{configFlags: flags, IOStreams: streams, stop: true}
	c := &cobra.Command{
		Use:   "stop",
		Short: "Stop the daemon of the current cluster and user",
		Long:  "Stop sends SIGTERM to the daemon of the current cluster and user and waits until it has exited.",
		Args:  cobra.NoArgs,
		RunE:  cli.RunE(o),
	}
	c.Flags().DurationVar(&o.Timeout, "timeout", 30*time.Second, "How long to wait for the daemon to exit")
	return c
}

// Complete finds the files of the kubeconfig's identity (of each
// context's, when --context names several).
func (o *ServeControlOptions) Complete([]string) error {
	var err error
	if o.contexts, err = contexts.Names(o.configFlags, false); err != nil {
		return err
	}
	if o.contexts == nil {
		o.files, err = filesOf(o.configFlags)
		return err
	}
	return contexts.Each(o.contexts, func(_ int, name string) error {
		files, err := filesOf(contexts.Flags(o.configFlags, name, o.IOStreams))
		o.contextFiles = append(o.contextFiles, files)
		return err
	})
}

// filesOf is the files of the daemon of flags' identity.
func filesOf(flags *genericclioptions.ConfigFlags) (daemon.Files, error) {
	cfg, err := flags.ToRESTConfig()
	if err != nil {
		return daemon.Files{}, fmt.Errorf("reading the kubeconfig: %w", err)
	}
	dir, err := daemon.Dir()
	if err != nil {
		return daemon.Files{}, err
	}
	return daemon.FilesOf(dir, daemon.Identity(cfg)), nil
}

// Validate checks the flags.
func (o *ServeControlOptions) Validate() error {
	if o.stop && o.Timeout <= 0 {
		return fmt.Errorf("invalid --timeout %s: want more than 0", o.Timeout)
	}
	return nil
}

// Run prints the status, or stops the daemon; with several contexts,
// each context's in turn, after a line naming it (a daemon that serves
// several of them is stopped once).
func (o *ServeControlOptions) Run(ctx context.Context) error {
	if o.contexts == nil {
		return o.run(ctx)
	}
	infos := make([]daemon.Info, len(o.contexts))
	err := contexts.Each(o.contexts, func(i int, _ string) error { // all found before one stops
		var err error
		infos[i], err = daemon.Running(o.contextFiles[i])
		return err
	})
	if err != nil {
		return err
	}
	stopped := map[int]bool{}
	return contexts.Each(o.contexts, func(i int, name string) error {
		if i > 0 && !o.stop {
			fmt.Fprintln(o.Out)
		}
		fmt.Fprintf(o.Out, "Context %s:\n", name)
		o.files = o.contextFiles[i]
		switch {
		case !o.stop:
			return o.status(ctx, infos[i])
		case stopped[infos[i].PID]:
			fmt.Fprintf(o.Out, "Stopped the daemon pid %d at %s\n", infos[i].PID, infos[i].Server)
			return nil
		}
		stopped[infos[i].PID] = true
		return o.stopDaemon(ctx, infos[i])
	})
}

func (o *ServeControlOptions) run(ctx context.Context) error {
	info, err := daemon.Running(o.files)
	if err != nil {
		return err
	}
	if o.stop {
		return o.stopDaemon(ctx, info)
	}
	return o.status(ctx, info)
}

func (o *ServeControlOptions) status(ctx context.Context, info daemon.Info) error {
	st, err := daemon.ReadStatus(ctx, o.files)
	if err != nil {
		return fmt.Errorf("asking the daemon pid %d at %s: %w", info.PID, info.Server, err)
	}
	return statusview.Print(o.Out, st, info, o.files.Kubeconfig)
}

// stopDaemon stops the daemon (daemon.Stop) and says so.
func (o *ServeControlOptions) stopDaemon(ctx context.Context, info daemon.Info) error {
	err := daemon.Stop(ctx, o.files, info, o.Timeout)
	switch {
	case err == nil:
		fmt.Fprintf(o.Out, "Stopped the daemon pid %d at %s\n", info.PID, info.Server)
		return nil
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return cli.ErrInterrupted
	}
	return err
}
