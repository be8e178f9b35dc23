package output

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFormatErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	tests := []struct {
		format string
		want   string // a part of the error
		// unknown: errors.Is ErrUnknownFormat, and the message is kubectl's.
		unknown bool
		// atNew: only New finds it (ValidateFormat does not read files).
		atNew bool
	}{
		{format: "x", unknown: true},
		{format: "table", unknown: true},
		{format: "json=x", unknown: true},
		{format: "jsonpath-as-json={.a}", unknown: true},
		{format: "jsonpath", want: "template format specified but no template given"},
		{format: "go-template=", want: "template format specified but no template given"},
		{format: "custom-columns", want: "custom-columns format specified but no custom columns given"},
		{format: "jsonpath={.metadata.name", want: "error parsing jsonpath {.metadata.name, unclosed action"},
		{format: "go-template={{.metadata.name}", want: "error parsing template {{.metadata.name}, template: output:1: "},
		{format: "custom-columns=NAME", want: "unexpected custom-columns spec: NAME, expected <header>:<json-path-expr>"},
		{format: "custom-columns=NAME:{.a}}", want: "unexpected path string"},
		{format: "custom-columns=NAME:.a[", want: "custom column NAME: error parsing jsonpath {.a[}"},
		{format: "jsonpath-file=" + missing, want: "reading -o jsonpath-file: open " + missing, atNew: true},
		{format: "go-template-file=" + missing, want: "reading -o go-template-file", atNew: true},
		{format: "custom-columns-file=" + missing, want: "reading -o custom-columns-file", atNew: true},
	}
	const kubectlMessage = `unable to match a printer suitable for the output format %q, allowed formats are: ` +
		`custom-columns,custom-columns-file,go-template,go-template-file,json,jsonpath,jsonpath-file,name,wide,yaml`
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			p, err := New(io.Discard, Options{Format: tt.format})
			if err == nil {
				t.Fatalf("New returned %T, want an error", p)
			}
			verr := ValidateFormat(tt.format)
			switch {
			case tt.atNew && verr != nil:
				t.Errorf("ValidateFormat: %v, want nil: files are read by New", verr)
			case !tt.atNew && (verr == nil || verr.Error() != err.Error()):
				t.Errorf("ValidateFormat: %v, want New's error %v", verr, err)
			}
			if tt.unknown {
				if want := strings.Replace(kubectlMessage, "%q", `"`+tt.format+`"`, 1); err.Error() != want {
					t.Errorf("error %q, want %q", err, want)
				}
				if !errors.Is(err, ErrUnknownFormat) {
					t.Errorf("errors.Is(%v, ErrUnknownFormat) = false", err)
				}
				return
			}
			if errors.Is(err, ErrUnknownFormat) {
				t.Errorf("errors.Is(%v, ErrUnknownFormat) = true", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestFormatsAccepted(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, format := range []string{
		"", "wide", "json", "yaml", "name",
		"jsonpath={.metadata.name}", "jsonpath=.metadata.name", "jsonpath-file=" + file("jp", "{.metadata.name}"),
		"go-template={{.metadata.name}}", "go-template-file=" + file("gt", "{{.metadata.name}}"),
		"custom-columns=NAME:.metadata.name,NS:{.metadata.namespace}",
		"custom-columns-file=" + file("cc", "NAME NS\n.metadata.name {.metadata.namespace}\n"),
	} {
		if err := ValidateFormat(format); err != nil {
			t.Errorf("ValidateFormat(%q): %v", format, err)
		}
		if _, err := New(io.Discard, Options{Format: format}); err != nil {
			t.Errorf("New(%q): %v", format, err)
		}
	}
}
