package output

import (
	"bufio"
	"fmt"
	"github.com/liggitt/tabwriter"
	"io"

	"k8s.io/cli-runtime/pkg/printers"
)

// objectPrinter runs a kubectl printer (jsonpath or go-template) on each
// event's object. Templates see the object, not the event: in
// -o jsonpath='{.metadata.name}{"\n"}' the root is the ConfigMap, as with
// kubectl get, and the event type is not available to them.
type objectPrinter struct {
	w   *bufio.Writer
	tw  *tabwriter.Writer // custom-columns align through it; nil otherwise
	out io.Writer         // tw or w
	p   printers.ResourcePrinter
}

// newTabbedPrinter runs p (kubectl's custom-columns printer) through one
// tabwriter for the whole stream, so that rows flushed together line up.
func newTabbedPrinter(w *bufio.Writer, p printers.ResourcePrinter) *objectPrinter {
	tw := printers.GetNewTabWriter(w)
	return &objectPrinter{w: w, tw: tw, out: tw, p: p}
}

func (p *objectPrinter) Print(ev Event) error {
	if ev.Object == nil {
		return errNoObject
	}
	u, err := ev.Object.Unstructured()
	if err != nil {
		return err
	}
	if err := p.p.PrintObj(u, p.out); err != nil {
		return fmt.Errorf("printing %s/%s: %w", ev.Object.Namespace, ev.Object.Name, err)
	}
	return nil
}

func (p *objectPrinter) Flush() error {
	if p.tw != nil {
		if err := p.tw.Flush(); err != nil {
			return err
		}
	}
	return p.w.Flush()
}

// compileJSONPath parses a jsonpath template the way kubectl does for
// -o jsonpath: missing keys print nothing.
func compileJSONPath(text string) (*printers.JSONPathPrinter, error) {
	p, err := printers.NewJSONPathPrinter(text)
	if err != nil {
		return nil, fmt.Errorf("error parsing jsonpath %s, %w", text, err)
	}
	p.AllowMissingKeys(true)
	return p, nil
}

// compileGoTemplate parses a Go template the way kubectl does for
// -o go-template: missing keys print "<no value>".
func compileGoTemplate(text string) (*printers.GoTemplatePrinter, error) {
	p, err := printers.NewGoTemplatePrinter([]byte(text))
	if err != nil {
		return nil, fmt.Errorf("error parsing template %s, %w", text, err)
	}
	p.AllowMissingKeys(true)
	return p, nil
}
