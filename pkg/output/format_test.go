package output

import (
	"io"
	"strings"
	"testing"

	"k8s.io/kubectl/pkg/cmd/get"
)

// withKubectl is opts with kubectl's printer for its Format, built from
// kubectl's get print flags as the commands build it; template is
// --template.
func withKubectl(t *testing.T, opts Options, template string) Options {
	t.Helper()
	pf := get.NewGetPrintFlags()
	*pf.OutputFormat = opts.Format
	*pf.NoHeaders = opts.NoHeaders
	*pf.TemplateFlags.TemplateArgument = template
	if Native(opts.Format) && template == "" {
		return opts
	}
	if opts.Format == "" { // --template alone is a go-template, as for kubectl
		opts.Format = "go-template"
	}
	p, err := pf.ToPrinter()
	if err != nil {
		t.Fatalf("kubectl's printer for -o %q: %v", opts.Format, err)
	}
	opts.Printer = p
	return opts
}

func TestNative(t *testing.T) {
	for format, want := range map[string]bool{
		"": true, "wide": true, "json": true, "yaml": true, "name": true,
		"kyaml": false, "jsonpath={.a}": false, "go-template={{.a}}": false, "custom-columns=A:.a": false,
		"template={{.a}}": false, "jsonpath-as-json={.a}": false, "json=x": false,
	} {
		if got := Native(format); got != want {
			t.Errorf("Native(%q) = %v, want %v", format, got, want)
		}
	}
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		opts Options
		want string // a part of the error
	}{
		{Options{Format: "jsonpath={.a}"}, "-o jsonpath={.a}: no printer given"},
		{Options{Format: "json", Diff: true}, "--diff prints YAML diffs and cannot be combined with -o json"},
		{Options{Format: "name", Diff: true}, "cannot be combined with -o name"},
		{withKubectl(t, Options{Format: "custom-columns=NAME:.a["}, ""), "custom column NAME: error parsing jsonpath {.a[}"},
	}
	for _, tt := range tests {
		t.Run(tt.opts.Format, func(t *testing.T) {
			p, err := New(io.Discard, tt.opts)
			if err == nil {
				t.Fatalf("New returned %T, want an error", p)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want it to contain %q", err, tt.want)
			}
		})
	}
}
