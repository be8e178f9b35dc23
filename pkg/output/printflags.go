package output

import (
	"io"

	"github.com/spf13/cobra"
	"k8s.io/kubectl/pkg/cmd/get"
)

// StreamFlags are the print flags of a stream, `watch` and `get -w`
// alike: kubectl's get print flags (-o, --no-headers, --show-labels, -L,
// --show-kind, --template, --allow-missing-template-keys,
// --show-managed-fields, --sort-by), which get uses too, and
// --output-watch-events.
type StreamFlags struct {
	*get.PrintFlags
	OutputWatchEvents bool
}

// NewStreamFlags are kubectl get's print flags with their defaults.
func NewStreamFlags() StreamFlags {
	return StreamFlags{PrintFlags: get.NewGetPrintFlags()}
}

// AddWatchEventsFlag adds --output-watch-events to c, worded as kubectl's.
func AddWatchEventsFlag(c *cobra.Command, value *bool) {
	c.Flags().BoolVar(value, "output-watch-events", false,
		"Output watch event objects: templates, custom columns and kyaml see {type, object}, and -o name adds the event type. json and yaml always carry the event.")
}

// Format is the -o in effect: --template alone means go-template, as for
// kubectl.
func (f StreamFlags) Format() string {
	if *f.OutputFormat == "" && *f.TemplateFlags.TemplateArgument != "" {
		return "go-template"
	}
	return *f.OutputFormat
}

// Options are the printer options the flags ask for; kubectl's printer is
// built for the formats this package does not print itself, so kubectl's
// messages report a bad -o or template. The printer is tried on
// io.Discard, so that a bad custom column fails here too.
func (f StreamFlags) Options() (Options, error) {
	h := f.HumanReadableFlags
	opts := Options{
		Format:       f.Format(),
		NoHeaders:    *f.NoHeaders,
		ShowKind:     *h.ShowKind,
		ShowLabels:   *h.ShowLabels,
		ColumnLabels: *h.ColumnLabels,
		WatchEvents:  f.OutputWatchEvents,
	}
	if !Native(opts.Format) {
		pf := f.Copy()
		p, err := pf.ToPrinter()
		if err != nil {
			return opts, err
		}
		opts.Printer = p
	}
	if _, err := New(io.Discard, opts); err != nil {
		return opts, err
	}
	return opts, nil
}

// Table says whether the stream prints the server's columns.
func (f StreamFlags) Table() bool {
	format := f.Format()
	return format == "" || format == "wide"
}

// SortByWarning is kubectl's warning for --sort-by with --watch, "" when
// there is no --sort-by.
func (f StreamFlags) SortByWarning() string {
	if *f.HumanReadableFlags.SortBy == "" {
		return ""
	}
	return "--watch requested, --sort-by will be ignored for watch events received"
}
