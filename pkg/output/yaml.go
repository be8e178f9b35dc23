package output

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"

	"sigs.k8s.io/yaml"
)

// yamlPrinter writes each event as a YAML document, documents separated by
// "---":
//
//	type: APPLIED
//	object:
//	  apiVersion: v1
//	  ...
//
// The object's keys come out sorted, as kubectl -o yaml prints them.
type yamlPrinter struct {
	w       *bufio.Writer
	printed bool
}

func (p *yamlPrinter) Print(ev Event) error {
	if ev.Object == nil {
		return errNoObject
	}
	raw := ev.Object.JSON()
	if len(raw) == 0 {
		raw = jsonNull
	}
	doc, err := yaml.JSONToYAML(raw)
	if err != nil {
		return fmt.Errorf("converting %s/%s to YAML: %w", ev.Object.Namespace, ev.Object.Name, err)
	}
	if p.printed {
		p.w.WriteString("---\n")
	}
	p.printed = true
	p.w.WriteString("type: ")
	if err := writeYAMLEventType(p.w, ev.Type); err != nil {
		return err
	}
	if ev.Context != "" {
		ctx, err := yaml.Marshal(ev.Context) // quoted as YAML needs
		if err != nil {
			return err
		}
		p.w.WriteString("\ncontext: ")
		p.w.Write(bytes.TrimSuffix(ctx, []byte("\n")))
	}
	p.w.WriteString("\nobject:\n")
	return writeIndented(p.w, doc, "  ")
}

// writeYAMLEventType writes the constant types bare and anything else as a
// JSON string, which YAML reads as a double-quoted scalar.
func writeYAMLEventType(w *bufio.Writer, t EventType) error {
	if t == Applied || t == Deleted {
		_, err := w.WriteString(string(t))
		return err
	}
	quoted, err := json.Marshal(string(t))
	if err != nil {
		return err
	}
	_, err = w.Write(quoted)
	return err
}

// writeIndented writes text with indent before each non-empty line. Empty
// lines stay empty so block scalars keep their content. bufio.Writer's
// errors stick, so the last write's error is the one to return.
func writeIndented(w *bufio.Writer, text []byte, indent string) error {
	var err error
	for len(text) > 0 {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line = text[:i+1]
		}
		text = text[len(line):]
		if len(line) > 1 || line[0] != '\n' {
			w.WriteString(indent)
		}
		_, err = w.Write(line)
	}
	return err
}

func (p *yamlPrinter) Flush() error { return p.w.Flush() }
