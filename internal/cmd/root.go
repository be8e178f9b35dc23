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
)

// errReported is returned by commands that already printed their errors.
var errReported = errors.New("errors were reported")

// NewCmdReflect is the root command, `kubectl reflect`.
func NewCmdReflect(streams genericiooptions.IOStreams) *cobra.Command {
	flags := genericclioptions.NewConfigFlags(true).
		WithWarningPrinter(streams). // the RESTMapper's, e.g. an ambiguous short name
		WithWrapConfigFn(printServerWarnings(streams.ErrOut))
	root := &cobra.Command{
		Use:   "kubectl-reflect",
		Short: "Watch and query Kubernetes objects the way controllers do",
		Long: `kubectl reflect runs reflectors (list, then watch, resumed and relisted as needed)
for the kinds you name and shows what they see (watch, get), or runs built-in
controllers on them (run-controller).`,
		Annotations: map[string]string{
			cobra.CommandDisplayNameAnnotation: "kubectl reflect",
		},
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	flags.AddFlags(root.PersistentFlags())
	verbosity := root.PersistentFlags().IntP("v", "v", 0, "Log level of client-go's logs on stderr (0: none)")
	addProfileFlags(root.PersistentFlags())
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		if err := setupLogs(*verbosity); err != nil {
			return err
		}
		return startProfile(root)
	}
	registry := builtins()
	root.AddCommand(NewCmdWatch(flags, streams), NewCmdGet(flags, streams), NewCmdVersion(streams),
		NewCmdRunController(flags, streams, registry), NewCmdCRD(flags, streams, registry))
	initCompletion(root, flags)
	return root
}

// printServerWarnings is a ConfigFlags.WrapConfigFn that prints the
// warnings servers send (a deprecated API, an ignored field) as kubectl
// does: "Warning: MESSAGE" on errOut, yellow on a terminal, each message
// once per process however many requests (a list, every watch) carry it.
// Without it client-go hands them to klog, which setupLogs silences.
func printServerWarnings(errOut io.Writer) func(*rest.Config) *rest.Config {
	handler := rest.NewWarningWriter(errOut, rest.WarningWriterOptions{Deduplicate: true, Color: printers.AllowsColorOutput(errOut)})
	return func(c *rest.Config) *rest.Config {
		c.WarningHandler = handler
		return c
	}
}

// options is what every command's Options struct does, in this order.
type options interface {
	Complete(args []string) error
	Validate() error
	Run(ctx context.Context) error
}

// runE is a command's RunE: Complete, Validate, Run.
func runE(o options) func(*cobra.Command, []string) error {
	return func(c *cobra.Command, args []string) error {
		if err := o.Complete(args); err != nil {
			return err
		}
		if err := o.Validate(); err != nil {
			return err
		}
		return o.Run(c.Context())
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

// Execute runs root with ctx, prints an error once as `error: ...` and
// returns the process exit code: 0, 1 after an error, 130 when a signal
// interrupted a command before it was done (see exitCode).
func Execute(ctx context.Context, root *cobra.Command, streams genericiooptions.IOStreams) int {
	err := errors.Join(root.ExecuteContext(ctx), stopProfile(root))
	if err != nil && !errors.Is(err, errReported) && !errors.Is(err, errInterrupted) {
		fmt.Fprintln(streams.ErrOut, "error: "+strings.TrimSpace(err.Error()))
	}
	return exitCode(err)
}
