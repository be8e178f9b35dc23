package output

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// allowedFormats are the -o values New accepts (besides "" for the table),
// sorted and spelled as kubectl's error message lists them.
var allowedFormats = []string{
	"custom-columns", "custom-columns-file", "go-template", "go-template-file",
	"json", "jsonpath", "jsonpath-file", "name", "wide", "yaml",
}

// ErrUnknownFormat is what New and ValidateFormat return, wrapped, for an -o
// value no printer matches. Test for it with errors.Is.
var ErrUnknownFormat = errors.New("unknown output format")

type unknownFormatError struct{ format string }

// Error mirrors kubectl's NoCompatiblePrinterError.
func (e *unknownFormatError) Error() string {
	return fmt.Sprintf("unable to match a printer suitable for the output format %q, allowed formats are: %s",
		e.format, strings.Join(allowedFormats, ","))
}

func (e *unknownFormatError) Is(target error) bool { return target == ErrUnknownFormat }

// format is a parsed -o value: "jsonpath-file=/tmp/x" has name
// "jsonpath-file" and arg "/tmp/x".
type format struct {
	name string
	arg  string
}

// parseFormat splits an -o value and checks that the name is known and that
// templates come with a template.
func parseFormat(s string) (format, error) {
	name, arg, hasArg := strings.Cut(s, "=")
	switch name {
	case "", "wide", "json", "yaml", "name":
		if hasArg {
			return format{}, &unknownFormatError{format: s}
		}
	case "jsonpath", "jsonpath-file", "go-template", "go-template-file":
		if arg == "" {
			return format{}, fmt.Errorf("-o %s: template format specified but no template given", name)
		}
	case "custom-columns", "custom-columns-file":
		if arg == "" {
			return format{}, fmt.Errorf("-o %s: custom-columns format specified but no custom columns given", name)
		}
	default:
		return format{}, &unknownFormatError{format: s}
	}
	return format{name: name, arg: arg}, nil
}

// isFile says whether the argument names a file holding the template.
func (f format) isFile() bool { return strings.HasSuffix(f.name, "-file") }

// template returns the template text: the argument, or the file it names.
func (f format) template() (string, error) {
	if !f.isFile() {
		return f.arg, nil
	}
	data, err := os.ReadFile(f.arg)
	if err != nil {
		return "", fmt.Errorf("reading -o %s: %w", f.name, err)
	}
	return string(data), nil
}

// ValidateFormat checks an -o value without building a printer: the format
// name, and inline jsonpath, go-template and custom-columns templates are
// compiled. Files named by the -file formats are only read by New.
func ValidateFormat(format string) error {
	f, err := parseFormat(format)
	if err != nil || f.isFile() {
		return err
	}
	switch f.name {
	case "jsonpath":
		_, err = compileJSONPath(f.arg)
	case "go-template":
		_, err = compileGoTemplate(f.arg)
	case "custom-columns":
		_, err = compileColumnSpec(f.arg, false)
	}
	return err
}

// writeBufferSize is how much a printer buffers between flushes before it
// writes anyway.
const writeBufferSize = 32 << 10

// New returns the printer opts.Format asks for, writing to w. Templates and
// column specs (inline or read from their file) are compiled here, so a bad
// -o fails before the first event.
//
// Printers are not safe for concurrent use: one goroutine prints and
// flushes.
func New(w io.Writer, opts Options) (Printer, error) {
	return newPrinter(w, opts, time.Now)
}

// newPrinter is New with the table's clock injected: now is read at each
// Flush to recompute the AGE column.
func newPrinter(w io.Writer, opts Options, now func() time.Time) (Printer, error) {
	f, err := parseFormat(opts.Format)
	if err != nil {
		return nil, err
	}
	bw := bufio.NewWriterSize(w, writeBufferSize)
	if opts.Diff {
		if f.name != "" && f.name != "yaml" {
			return nil, fmt.Errorf("--diff prints YAML diffs and cannot be combined with -o %s", opts.Format)
		}
		return &diffPrinter{w: bw, color: opts.Color}, nil
	}
	switch f.name {
	case "", "wide":
		return newTablePrinter(bw, opts, f.name == "wide", now), nil
	case "json":
		return &jsonPrinter{w: bw}, nil
	case "yaml":
		return &yamlPrinter{w: bw}, nil
	case "name":
		return &namePrinter{w: bw}, nil
	}
	text, err := f.template()
	if err != nil {
		return nil, err
	}
	switch f.name {
	case "jsonpath", "jsonpath-file":
		p, err := compileJSONPath(text)
		if err != nil {
			return nil, err
		}
		return &objectPrinter{w: bw, out: bw, p: p}, nil
	case "go-template", "go-template-file":
		p, err := compileGoTemplate(text)
		if err != nil {
			return nil, err
		}
		return &objectPrinter{w: bw, out: bw, p: p}, nil
	case "custom-columns":
		p, err := compileColumnSpec(text, opts.NoHeaders)
		if err != nil {
			return nil, err
		}
		return newTabbedPrinter(bw, p), nil
	default: // custom-columns-file
		p, err := compileColumnFile(text, opts.NoHeaders)
		if err != nil {
			return nil, fmt.Errorf("-o custom-columns-file=%s: %w", f.arg, err)
		}
		return newTabbedPrinter(bw, p), nil
	}
}
