package cmd

import (
	"io"

	"github.com/spf13/cobra"
	"k8s.io/kubectl/pkg/cmd/get"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/output"
)

// watchPrintFlags are the print flags of a stream, `watch` and `get -w`
// alike: kubectl's get print flags (-o, --no-headers, --show-labels, -L,
// --show-kind, --template, --allow-missing-template-keys,
// --show-managed-fields, --sort-by), which get uses too, and
// --output-watch-events.
type watchPrintFlags struct {
	*get.PrintFlags
	OutputWatchEvents bool
}

func newWatchPrintFlags() watchPrintFlags {
	return watchPrintFlags{PrintFlags: get.NewGetPrintFlags()}
}

// addWatchEventsFlag adds --output-watch-events, worded as kubectl's.
func addWatchEventsFlag(c *cobra.Command, value *bool) {
	c.Flags().BoolVar(value, "output-watch-events", false,
		"Output watch event objects: templates, custom columns and kyaml see {type, object}, and -o name adds the event type. json and yaml always carry the event.")
}

// format is the -o in effect: --template alone means go-template, as for
// kubectl.
func (f watchPrintFlags) format() string {
	if *f.OutputFormat == "" && *f.TemplateFlags.TemplateArgument != "" {
		return "go-template"
	}
	return *f.OutputFormat
}

// options are the printer options the flags ask for; kubectl's printer is
// built for the formats pkg/output does not print itself, so kubectl's
// messages report a bad -o or template. The printer is tried on io.Discard,
// so that a bad custom column fails here too.
func (f watchPrintFlags) options() (output.Options, error) {
	h := f.HumanReadableFlags
	opts := output.Options{
		Format:       f.format(),
		NoHeaders:    *f.NoHeaders,
		ShowKind:     *h.ShowKind,
		ShowLabels:   *h.ShowLabels,
		ColumnLabels: *h.ColumnLabels,
		WatchEvents:  f.OutputWatchEvents,
	}
	if !output.Native(opts.Format) {
		pf := f.Copy()
		p, err := pf.ToPrinter()
		if err != nil {
			return opts, err
		}
		opts.Printer = p
	}
	if _, err := output.New(io.Discard, opts); err != nil {
		return opts, err
	}
	return opts, nil
}

// table says whether the stream prints the server's columns.
func (f watchPrintFlags) table() bool {
	format := f.format()
	return format == "" || format == "wide"
}

// sortByWarning is kubectl's warning for --sort-by with --watch, "" when
// there is no --sort-by.
func (f watchPrintFlags) sortByWarning() string {
	if *f.HumanReadableFlags.SortBy == "" {
		return ""
	}
	return "--watch requested, --sort-by will be ignored for watch events received"
}
