package watch

import (
	"bytes"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/output"
)

// TestWatchPrintFlags parses watch's print flags as the command line gives
// them and checks the printer options, or kubectl's error, they lead to.
func TestWatchPrintFlags(t *testing.T) {
	tests := []struct {
		args    []string
		format  string // the format in effect
		printer bool   // kubectl's printer is used
		events  bool
		diff    string // "diff": Diff; "diff-new": Diff and DiffNew
		wantErr string
	}{
		{args: nil, format: ""},
		{args: []string{"-o", "wide", "--show-labels", "-L", "app", "--show-kind"}, format: "wide"},
		{args: []string{"-o", "json"}, format: "json"},
		{args: []string{"-o", "name", "--output-watch-events"}, format: "name", events: true},
		{args: []string{"-o", "kyaml"}, format: "kyaml", printer: true},
		{args: []string{"-o", "jsonpath-as-json={.metadata.name}"}, format: "jsonpath-as-json={.metadata.name}", printer: true},
		{args: []string{"-o", "template={{.metadata.name}}"}, format: "template={{.metadata.name}}", printer: true},
		{args: []string{"--template", "{{.metadata.name}}"}, format: "go-template", printer: true},
		{args: []string{"-o", "jsonpath", "--template", "{.metadata.name}"}, format: "jsonpath", printer: true},
		{args: []string{"-o", "custom-columns=EVENT:.type", "--output-watch-events"}, format: "custom-columns=EVENT:.type", printer: true, events: true},
		{args: []string{"-o", "x"}, wantErr: `unable to match a printer suitable for the output format "x", allowed formats are: custom-columns,custom-columns-file,go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,kyaml,name,template,templatefile,wide,yaml`},
		{args: []string{"-o", "jsonpath"}, wantErr: "template format specified but no template given"},
		{args: []string{"-o", "jsonpath={.a"}, wantErr: "error parsing jsonpath {.a, unclosed action"},
		{args: []string{"-o", "custom-columns=A:.a["}, wantErr: "custom column A: error parsing jsonpath {.a[}"},
		{args: []string{"-o", "name", "--diff"}, wantErr: "--diff prints YAML diffs and cannot be combined with -o name"},
		{args: []string{"--diff"}, format: "", diff: "diff"},
		{args: []string{"--diff", "--diff-new", "-o", "yaml"}, format: "yaml", diff: "diff-new"},
		{args: []string{"--diff-new"}, wantErr: "--diff-new prints the YAML of new objects under --diff: give --diff too"},
		{args: []string{"-o", "json", "--diff", "--diff-new"}, wantErr: "--diff prints YAML diffs and cannot be combined with -o json"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var errOut bytes.Buffer
			o := &WatchOptions{IOStreams: genericiooptions.IOStreams{Out: &bytes.Buffer{}, ErrOut: &errOut}, PrintFlags: output.NewStreamFlags()}
			if err := newCmdWatch(o).ParseFlags(tt.args); err != nil {
				t.Fatal(err)
			}
			err := o.validatePrintFlags()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o.printOpts.Format != tt.format || (o.printOpts.Printer != nil) != tt.printer || o.printOpts.WatchEvents != tt.events {
				t.Errorf("options: format %q, kubectl's printer %v, events %v; want %q, %v, %v",
					o.printOpts.Format, o.printOpts.Printer != nil, o.printOpts.WatchEvents, tt.format, tt.printer, tt.events)
			}
			diff := map[[2]bool]string{{true, false}: "diff", {true, true}: "diff-new"}[[2]bool{o.printOpts.Diff, o.printOpts.DiffNew}]
			if diff != tt.diff {
				t.Errorf("diff options %q, want %q", diff, tt.diff)
			}
		})
	}
}
