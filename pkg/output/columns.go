package output

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/jsonpath"
	"k8s.io/kubectl/pkg/cmd/get"
)

// compileColumnSpec parses -o custom-columns=NAME:.metadata.name,... with
// kubectl's own custom-columns printer.
func compileColumnSpec(spec string, noHeaders bool) (*get.CustomColumnsPrinter, error) {
	p, err := get.NewCustomColumnsPrinterFromSpec(spec, unstructured.UnstructuredJSONScheme, noHeaders)
	if err != nil {
		return nil, err
	}
	return p, parseColumns(p)
}

// parseColumns parses every column's path now: kubectl's printer would only
// find a bad one at the first object.
func parseColumns(p *get.CustomColumnsPrinter) error {
	for _, c := range p.Columns {
		if err := jsonpath.New(c.Header).Parse(c.FieldSpec); err != nil {
			return fmt.Errorf("custom column %s: error parsing jsonpath %s, %w", c.Header, c.FieldSpec, err)
		}
	}
	return nil
}

// compileColumnFile parses a -o custom-columns-file: a line of headers over
// a line of paths, as kubectl reads it.
func compileColumnFile(text string, noHeaders bool) (*get.CustomColumnsPrinter, error) {
	p, err := get.NewCustomColumnsPrinterFromTemplate(strings.NewReader(text), unstructured.UnstructuredJSONScheme)
	if err != nil {
		return nil, err
	}
	p.NoHeaders = noHeaders
	return p, parseColumns(p)
}
