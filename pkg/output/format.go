package output

import (
	"bufio"
	"fmt"
	"io"
	"time"

	"k8s.io/kubectl/pkg/cmd/get"
)

// Native says whether New prints format itself ("", wide, json, yaml and
// name); any other -o needs kubectl's printer in Options.Printer.
func Native(format string) bool {
	switch format {
	case "", "wide", "json", "yaml", "name":
		return true
	}
	return false
}

// writeBufferSize is how much a printer buffers between flushes before it
// writes anyway.
const writeBufferSize = 32 << 10

// New returns the printer opts.Format asks for, writing to w. Formats that
// are not Native go through opts.Printer, kubectl's printer for them (see
// Options.Printer); a custom-columns printer's paths are parsed here, so a
// bad -o fails before the first event.
//
// Printers are not safe for concurrent use: one goroutine prints and
// flushes.
func New(w io.Writer, opts Options) (Printer, error) {
	return newPrinter(w, opts, time.Now)
}

// newPrinter is New with the table's clock injected: now is read at each
// Flush to recompute the AGE column.
func newPrinter(w io.Writer, opts Options, now func() time.Time) (Printer, error) {
	bw := bufio.NewWriterSize(w, writeBufferSize)
	if opts.Diff {
		if opts.Format != "" && opts.Format != "yaml" {
			return nil, fmt.Errorf("--diff prints YAML diffs and cannot be combined with -o %s", opts.Format)
		}
		return newDiffPrinter(bw, opts), nil
	}
	switch opts.Format {
	case "", "wide":
		return newTablePrinter(bw, opts, opts.Format == "wide", now), nil
	case "json":
		return &jsonPrinter{w: bw}, nil
	case "yaml":
		return &yamlPrinter{w: bw}, nil
	case "name":
		return &namePrinter{w: bw, events: opts.WatchEvents}, nil
	}
	if opts.Printer == nil {
		return nil, fmt.Errorf("-o %s: no printer given for the format", opts.Format)
	}
	if c, ok := opts.Printer.(*get.CustomColumnsPrinter); ok {
		if err := checkColumns(c); err != nil {
			return nil, err
		}
	}
	return newKubectlPrinter(bw, opts.Printer, opts.WatchEvents || opts.Format == "kyaml"), nil
}
