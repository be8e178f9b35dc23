package cmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
	_ "k8s.io/client-go/plugin/pkg/client/auth" // exec, OIDC and other auth plugins
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/blame"
	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/cli"
	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/completion"
	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/crd"
	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/diff"
	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/get"
	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/history"
	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/runcontroller"
	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/serve"
	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/timeline"
	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/version"
	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/watch"
)

// NewCmdReflect is the root command, `kubectl reflect`.
func NewCmdReflect(streams genericiooptions.IOStreams) *cobra.Command {
	warnings := newServerWarnings(streams.ErrOut)
	flags := genericclioptions.NewConfigFlags(true).
		WithWarningPrinter(streams). // the RESTMapper's, e.g. an ambiguous short name
		WithWrapConfigFn(warnings.wrapConfig)
	root := &cobra.Command{
		Use:   "kubectl-reflect",
		Short: "Watch and query Kubernetes objects the way controllers do",
		Long: `kubectl reflect runs reflectors (list, then watch, resumed and relisted as needed)
for the kinds you name and shows what they see (watch, get), serves them to
other clients as a read-only API (serve), or runs built-in controllers on them
(run-controller).`,
		Annotations: map[string]string{
			cobra.CommandDisplayNameAnnotation: "kubectl reflect",
		},
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	flags.AddFlags(root.PersistentFlags())
	verbosity := root.PersistentFlags().IntP("v", "v", 0, "Log level of client-go's logs on stderr (0: none)")
	addProfileFlags(root.PersistentFlags())
	root.PersistentFlags().BoolVar(&warnings.asErrors, "warnings-as-errors", false,
		"Treat warnings received from the server as errors and exit with a non-zero exit code")
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		if err := setupLogs(*verbosity); err != nil {
			return err
		}
		return startProfile(root)
	}
	root.PersistentPostRunE = func(*cobra.Command, []string) error { return warnings.err() }
	registry := builtins()
	root.AddCommand(watch.NewCmdWatch(flags, streams), get.NewCmdGet(flags, streams), serve.NewCmdServe(flags, streams, registry), history.NewCmdHistory(flags, streams), timeline.NewCmdTimeline(flags, streams), version.NewCmdVersion(streams),
		runcontroller.NewCmdRunController(flags, streams, registry), crd.NewCmdCRD(flags, streams, registry))
	root.AddCommand(diff.NewCmdDiff(flags, streams))
	root.AddCommand(blame.NewCmdBlame(flags, streams))
	completion.Setup(root, flags)
	return root
}

// serverWarnings prints the warnings servers send (a deprecated API, an
// ignored field) as kubectl does: "Warning: MESSAGE" on stderr, yellow on a
// terminal, each message once per process however many requests (a list,
// every watch) carry it. Without it client-go hands them to klog, which
// setupLogs silences. With --warnings-as-errors, a command that succeeded
// fails if any came, as kubectl's does.
type serverWarnings struct {
	handler interface { // rest.NewWarningWriter's, an unexported type
		rest.WarningHandler
		WarningCount() int
	}
	asErrors bool // --warnings-as-errors
}

func newServerWarnings(errOut io.Writer) *serverWarnings {
	return &serverWarnings{handler: rest.NewWarningWriter(errOut, rest.WarningWriterOptions{Deduplicate: true, Color: printers.AllowsColorOutput(errOut)})}
}

// wrapConfig is a ConfigFlags.WrapConfigFn: every client made from the
// flags' config reports its warnings to w.
func (w *serverWarnings) wrapConfig(c *rest.Config) *rest.Config {
	c.WarningHandler = w.handler
	return c
}

// err is kubectl's error for the warnings printed, under
// --warnings-as-errors; nil otherwise.
func (w *serverWarnings) err() error {
	if !w.asErrors {
		return nil
	}
	switch n := w.handler.WarningCount(); n {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("%d warning received", n)
	default:
		return fmt.Errorf("%d warnings received", n)
	}
}

// setupLogs silences client-go's klog output, which would add lines to our
// one-line errors, unless -v asks for it.
func setupLogs(verbosity int) error {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	if verbosity <= 0 {
		klog.SetLogger(logr.Discard())
		return nil
	}
	return fs.Set("v", strconv.Itoa(verbosity))
}

// Execute runs root with ctx, prints an error once as `error: ...` (one
// line for each of several, such as two kinds refused) and returns the
// process exit code: 0, 1 after an error, 130 when a signal interrupted a
// command before it was done, or the code an error says (cli.ExitStatus:
// diff's 1 for "different", 2 for an error); see cli.ExitCode.
func Execute(ctx context.Context, root *cobra.Command, streams genericiooptions.IOStreams) int {
	err := errors.Join(root.ExecuteContext(ctx), stopProfile(root))
	if err != nil && !errors.Is(err, cli.ErrReported) && !errors.Is(err, cli.ErrInterrupted) {
		for _, e := range cli.Joined(err) {
			fmt.Fprintln(streams.ErrOut, "error: "+strings.TrimSpace(e.Error()))
		}
	}
	return cli.ExitCode(err)
}
